// A server of the TypeScript MCP SDK v1 (npm @modelcontextprotocol/sdk,
// pinned in package.json), which speaks the revisions up to 2025-11-25 and
// not 2026-07-28, over the two HTTP transports users still run it with:
//
//   node legacy.mjs http PORT   Streamable HTTP with sessions at /mcp: an
//                               initialize POST opens a session (its own
//                               Server and StreamableHTTPServerTransport),
//                               the Mcp-Session-Id header names it after
//                               that, DELETE ends it
//   node legacy.mjs sse PORT    HTTP+SSE (2024-11-05): GET /sse opens the
//                               stream (SSEServerTransport), whose endpoint
//                               event names /messages?sessionId=...
//
// Each listens on 127.0.0.1:PORT (0: any free port) and prints
// "listening PORT" once it does, then "received METHOD" for each request
// or notification a client POSTs to it, and over Streamable HTTP
// "received METHOD at VERSION" beside it (VERSION: the request's
// MCP-Protocol-Version header, or "none"; METHOD is GET for the client's
// standalone stream). Its tools: echo {message} answers "Echo: <message>",
// add {a, b} answers the sum, grow adds the tool extra (which answers
// "extra"), then sends notifications/tools/list_changed and a
// notifications/message "grew" to every session, which without a request
// of theirs go on each session's standalone GET stream; ping-client pings
// the client there, and answers "pong" once it has answered.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const [mode, port] = process.argv.slice(2);
if ((mode !== 'http' && mode !== 'sse') || port === undefined) {
  console.error('usage: legacy.mjs http PORT | sse PORT');
  process.exit(2);
}

const sessionServers = new Set(); // the Streamable HTTP sessions' Servers
const tools = [
  {
    name: 'echo',
    description: 'Echo the message',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  {
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  { name: 'grow', description: 'Add the tool extra', inputSchema: { type: 'object', properties: {} } },
  { name: 'ping-client', description: 'Ping the client', inputSchema: { type: 'object', properties: {} } },
];
const extra = { name: 'extra', description: 'Added by grow', inputSchema: { type: 'object', properties: {} } };

function newServer() {
  const s = new Server({ name: 'interop-typescript-v1-' + mode, version: '1.32.2' },
    { capabilities: { tools: { listChanged: true }, logging: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => {
    const args = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: 'Echo: ' + args.message }] };
      case 'add':
        return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      case 'grow':
        if (!tools.includes(extra)) tools.push(extra);
        for (const other of sessionServers) {
          await other.sendToolListChanged();
          await other.sendLoggingMessage({ level: 'info', logger: 'legacy.mjs', data: 'grew' });
        }
        return { content: [{ type: 'text', text: 'grew' }] };
      case 'extra':
        return { content: [{ type: 'text', text: 'extra' }] };
      case 'ping-client':
        await s.ping(); // not of this request: on the standalone stream
        return { content: [{ type: 'text', text: 'pong' }] };
      default:
        return { content: [{ type: 'text', text: 'no such tool: ' + req.params.name }], isError: true };
    }
  });
  return s;
}

function readJSON(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });
}

function noteReceived(body, req) {
  const version = req?.headers['mcp-protocol-version'] ?? 'none';
  if (req?.method === 'GET') console.log('received GET at ' + version);
  for (const m of Array.isArray(body) ? body : [body]) {
    if (typeof m?.method !== 'string') continue;
    console.log('received ' + m.method);
    if (req) console.log('received ' + m.method + ' at ' + version);
  }
}

function answer(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

// The SDK v1's own example (simpleStreamableHttp), on node:http.
const sessions = new Map();
async function streamable(req, res) {
  const id = req.headers['mcp-session-id'];
  const body = req.method === 'POST' ? await readJSON(req) : undefined;
  noteReceived(body, req);
  let t = id ? sessions.get(id) : undefined;
  if (!t) {
    if (id || req.method !== 'POST' || !isInitializeRequest(body)) {
      answer(res, 400, 'Bad Request: No valid session ID provided');
      return;
    }
    t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, t),
    });
    const s = newServer();
    sessionServers.add(s);
    t.onclose = () => {
      sessionServers.delete(s);
      if (t.sessionId) sessions.delete(t.sessionId);
    };
    await s.connect(t);
  }
  await t.handleRequest(req, res, body);
}

// The SDK v1's own example (simpleSseServer), on node:http.
const streams = new Map();
async function sse(req, res, url) {
  if (req.method === 'GET' && url.pathname === '/sse') {
    const t = new SSEServerTransport('/messages', res);
    streams.set(t.sessionId, t);
    t.onclose = () => streams.delete(t.sessionId);
    await newServer().connect(t);
    return;
  }
  if (req.method === 'POST' && url.pathname === '/messages') {
    const t = streams.get(url.searchParams.get('sessionId'));
    if (!t) {
      res.writeHead(404).end('Session not found');
      return;
    }
    const body = await readJSON(req);
    noteReceived(body);
    await t.handlePostMessage(req, res, body);
    return;
  }
  res.writeHead(404).end('Not found');
}

const http = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const serve = mode === 'sse' ? sse(req, res, url) : url.pathname === '/mcp' ? streamable(req, res) : null;
  if (serve === null) {
    res.writeHead(404).end('Not found');
    return;
  }
  serve.catch((e) => {
    console.error(e);
    if (!res.headersSent) answer(res, 500, String(e));
  });
});
http.listen(Number(port), '127.0.0.1', () => {
  console.log('listening ' + http.address().port);
});
