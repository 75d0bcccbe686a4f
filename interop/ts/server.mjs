// The interop tests' TypeScript server: the tools every interop server offers
// (see interop/doc.go), written with the TypeScript MCP server SDK v2.
//
//   node server.mjs stdio RECORD          serveStdio on this process's stdio
//   node server.mjs http PORT RECORD      createMcpHandler behind node:http on
//                                         127.0.0.1:PORT (0: any free port);
//                                         prints "listening PORT" once it is
//
// RECORD is a file the server appends a line to for what the tests check
// from its side: "echo" for each echo call, "slow started" and "slow
// cancelled" for slow.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const [mode, ...rest] = process.argv.slice(2);
const record = mode === 'http' ? rest[1] : rest[0];
if ((mode !== 'stdio' && mode !== 'http') || !record) {
  console.error('usage: server.mjs stdio RECORD | http PORT RECORD');
  process.exit(2);
}
const note = (line) => appendFileSync(record, line + '\n');
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const object = (properties = {}, required = []) => fromJsonSchema({ type: 'object', properties, required });
const numbers = object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']);

// gather's barrier spans the process: over HTTP every request gets a fresh
// McpServer from the factory.
let gathered = 0;

function newServer() {
  const s = new McpServer({ name: 'interop-typescript', version: '2.4.0' }, { capabilities: { tools: {} } });
  s.registerTool('add', { description: 'Add two numbers', inputSchema: numbers }, ({ a, b }) => text(String(a + b)));
  s.registerTool('echo', { description: 'Echo the arguments', inputSchema: fromJsonSchema({ type: 'object' }) }, (args) => {
    note('echo');
    return text(JSON.stringify(args ?? {}));
  });
  s.registerTool('fail', { description: 'Always fails' }, () => ({ ...text('boom'), isError: true }));
  s.registerTool('image', { description: 'Image content' }, () => ({
    content: [{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(2048).toString('base64') }],
  }));
  s.registerTool('audio', { description: 'Audio content' }, () => ({
    content: [{ type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(10).toString('base64') }],
  }));
  s.registerTool('resource', { description: 'An embedded resource' }, () => ({
    content: [{ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' } }],
  }));
  s.registerTool('link', { description: 'A resource link' }, () => ({
    content: [{ type: 'resource_link', uri: 'file:///big.bin', name: 'big', mimeType: 'application/octet-stream' }],
  }));
  s.registerTool(
    'structured',
    { description: 'Add, structured only', inputSchema: numbers, outputSchema: object({ sum: { type: 'number' } }, ['sum']) },
    ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } }),
  );
  s.registerTool('slow', { description: 'Wait ms milliseconds', inputSchema: object({ ms: { type: 'number' } }) }, async ({ ms }, ctx) => {
    note('slow started');
    const signal = ctx.mcpReq.signal;
    const cancelled = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (cancelled) {
      note('slow cancelled');
      throw new Error('cancelled');
    }
    return text('done');
  });
  s.registerTool('gather', { description: 'Wait until n calls are in flight', inputSchema: object({ n: { type: 'number' } }) }, async ({ n }, ctx) => {
    n = Math.max(1, n ?? 1);
    const k = ++gathered;
    const target = (Math.floor((k - 1) / n) + 1) * n;
    const deadline = Date.now() + 10000;
    while (gathered < target) {
      if (Date.now() > deadline) return text('alone');
      if (ctx.mcpReq.signal.aborted) throw new Error('cancelled');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return text('together');
  });
  if (mode === 'stdio') {
    s.registerTool('exit', { description: 'Exit the server process' }, () => {
      console.error('exiting on request');
      process.exit(3);
    });
  }
  return s;
}

if (mode === 'stdio') {
  serveStdio(newServer);
} else {
  const handler = createMcpHandler(newServer);
  const server = createServer(toNodeHandler(handler));
  server.listen(Number(rest[0]), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
}
