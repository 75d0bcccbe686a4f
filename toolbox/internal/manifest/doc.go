// Package manifest keeps the toolbox's manifests: each server's last tool
// list on disk between processes, what a lazy server exposes before it
// starts and the pins of toolbox.WithPinnedTools.
//
// A [Store] is a directory of files, one per server entry, named after the
// entry's digest ([EntryDigest]: its type, command, args, url and the
// names, never the values, of its env variables and headers), written
// atomically with mode 0600. A [Manifest] holds the list as the server
// sent it, its cache hints, a [Digest] of each tool ([DigestTool]: its
// description, title, schemas and annotations, each part on its own so
// that a change can say what changed) and the pins. [Digests] digests each
// listed tool once. The toolbox decides when to write and what to hold out;
// this package knows nothing of servers or actors.
package manifest
