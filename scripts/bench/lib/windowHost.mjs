// A stand-in for one VS Code window's extension host over a shared store, for
// the "idle windows" figure. It runs the core exactly as
// src/ui/paddockExtension.ts configures it — one JobStore, one Coordinator
// (its scheduler acts only while it holds the leader lease, woken by the
// store watcher), the window's maxConcurrent — plus the reads the agents model
// (src/ui/model/agentsModel.ts) makes on its own: its first full load, then
// one read of each job the coordinator reports changed, batched over
// MODEL_DEBOUNCE_MS. What it leaves out: VS Code itself, and the views (tree,
// status bar, badge, notifier), which read the model, not the store.
//
//   node windowHost.mjs CORE_BUNDLE WORKER_SCRIPT MAX_CONCURRENT   (PADDOCK_HOME in the environment)
//
// Counts the store's file-system reads under PADDOCK_HOME; a line "report" on
// stdin prints the counts so far as one JSON line on stdout.
import { createRequire } from 'node:module';
import { basename } from 'node:path';

const require = createRequire(import.meta.url);
// The CommonJS module object, which the bundled core shares (an ESM namespace is read-only).
const fs = require('node:fs');
const [bundle, workerScript, maxConcurrent] = process.argv.slice(2);
const home = process.env.PADDOCK_HOME;
const counts = { recordReads: 0, otherFileReads: 0, dirListings: 0, stats: 0 };

function counted(target, name, kind) {
  const original = target[name];
  target[name] = function (path, ...rest) {
    const p = typeof path === 'string' ? path : path instanceof URL ? path.pathname : String(path);
    if (p.startsWith(home)) {
      if (kind === 'read') counts[basename(p) === 'job.json' ? 'recordReads' : 'otherFileReads']++;
      else counts[kind]++;
    }
    return original.call(this, path, ...rest);
  };
}
// Every form the store may use: synchronous, promise and callback.
for (const [name, kind] of [['readFile', 'read'], ['readdir', 'dirListings'], ['stat', 'stats'], ['lstat', 'stats']]) {
  counted(fs, `${name}Sync`, kind);
  counted(fs.promises, name, kind);
  counted(fs, name, kind);
}

const { Coordinator, JobStore } = require(bundle);
const store = new JobStore({ home });
const coordinator = new Coordinator({
  store,
  settings: () => ({ maxConcurrent: Number(maxConcurrent) }),
  workerScript,
  env: process.env,
  log: () => undefined,
});
// The agents model: first load, then the changed jobs read once per debounce window (100 ms).
const MODEL_DEBOUNCE_MS = 100;
void store.list().catch(() => undefined);
const pending = new Set();
let flushTimer;
coordinator.onDidChangeJob((id) => {
  pending.add(id);
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    const ids = [...pending];
    pending.clear();
    for (const changed of ids) void store.tryRead(changed).catch(() => undefined);
  }, MODEL_DEBOUNCE_MS);
});

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  if (text.includes('report')) process.stdout.write(`${JSON.stringify({ ...counts, isLeader: coordinator.isLeader })}\n`);
});
process.stdin.on('end', () => {
  coordinator.dispose();
  process.exit(0);
});
