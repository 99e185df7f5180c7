// A stand-in for one VS Code window's extension host over a shared store, for
// the "idle windows" figure. It runs the core exactly as
// src/ui/paddockExtension.ts configures it — one JobStore, one Coordinator
// with its default loop (1 s tick) and its store watcher, the window's
// maxConcurrent — plus the reads the agents tree makes on its own: its first
// full load, a re-read of each job the coordinator reports changed, and a full
// reload every 60 s. What it leaves out: VS Code itself, the tree's rendering
// and the status bar (they read the tree's cache, not the store).
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
counted(fs, 'readFileSync', 'read');
counted(fs.promises, 'readFile', 'read');
counted(fs, 'readdirSync', 'dirListings');
counted(fs.promises, 'readdir', 'dirListings');
counted(fs, 'statSync', 'stats');
counted(fs.promises, 'stat', 'stats');
counted(fs, 'lstatSync', 'stats');
counted(fs.promises, 'lstat', 'stats');

const { Coordinator, JobStore } = require(bundle);
const store = new JobStore({ home });
const coordinator = new Coordinator({
  store,
  settings: () => ({ maxConcurrent: Number(maxConcurrent) }),
  workerScript,
  env: process.env,
  log: () => undefined,
});
// The agents tree (src/ui/tree/agentsTreeProvider.ts): first load, one re-read per changed job, full reload every 60 s.
const reload = () => store.list().catch(() => undefined);
void reload();
coordinator.onDidChangeJob((id) => void store.tryRead(id).catch(() => undefined));
setInterval(reload, 60_000);

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  if (text.includes('report')) process.stdout.write(`${JSON.stringify({ ...counts, isLeader: coordinator.isLeader })}\n`);
});
process.stdin.on('end', () => {
  coordinator.dispose();
  process.exit(0);
});
