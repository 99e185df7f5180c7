/**
 * The open, fstat and small copy of one file named by `copy`, done by a child process that is killed
 * at a time limit (bug 216). Done in Paddock's own process, a file on a file system that stopped
 * answering (an sshfs or NFS mount gone away, a FUSE file that lists but never opens) held a libuv
 * pool thread in open(2) for good: the start waited for ever, and so did the process's exit (libuv
 * joins its pool threads at exit; `process.exit` hung). A child stuck there dies with SIGKILL.
 *
 * The child opens as copyRegular.ts did (without blocking, without following a link), fstats, and
 * copies a small dense file through its /proc/self/fd entry, so it copies what it checked. A big
 * or sparse file is only reported: bigCopy.ts copies it through a `cp` child under its own limit.
 * Linux only (the caller decides): it needs /proc/self/fd.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { failure } from '../common/errors';
import * as z from '../common/zod';
import { isPlainNode } from '../worker/spawn';

/** A small file on a healthy disk copies in milliseconds; a spawn in a busy window in well under a second. */
export const SMALL_COPY_TIMEOUT_MS = 60_000;

/** What the child found: copied, why not (its error's code and message), not a regular file, or one for bigCopy.ts. */
const OutcomeSchema = z.union([
  z.object({ copied: z.literal(true) }),
  z.object({ code: z.string().check(z.maxLength(100)), message: z.string().check(z.maxLength(10_000)) }),
  z.object({ notRegular: z.literal(true) }),
  z.object({ big: z.literal(true) }),
]);
export type SmallCopyOutcome = z.infer<typeof OutcomeSchema>;

/**
 * Run by `node -e`: reads one JSON request a line on stdin ({source, dest, sparseFrom, timedFrom}),
 * answers each in order with one JSON line, written synchronously (stdout is a pipe); exits at the
 * end of stdin. One child serves a whole placement: a spawn per file cost 60 s for 300 files here.
 */
const CHILD = `
const fs = require('fs');
const c = fs.constants;
const one = ({ source, dest, sparseFrom, timedFrom }) => {
  let fd;
  try { fd = fs.openSync(source, c.O_RDONLY | c.O_NONBLOCK | c.O_NOFOLLOW); } catch (e) { return { code: String(e.code || 'EIO'), message: String(e.message) }; }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { notRegular: true };
    if ((st.size > sparseFrom && st.blocks * 512 < st.size) || st.size >= timedFrom) return { big: true };
    fs.copyFileSync('/proc/self/fd/' + fd, dest, c.COPYFILE_EXCL | c.COPYFILE_FICLONE);
    return { copied: true };
  } catch (e) {
    return { code: String(e.code || 'EIO'), message: String(e.message) };
  } finally {
    fs.closeSync(fd);
  }
};
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  fs.writeSync(1, JSON.stringify(one(JSON.parse(line))) + '\\n');
});
`;

interface Pending {
  resolve: (o: SmallCopyOutcome) => void;
  reject: (err: Error) => void;
  dest: string;
}

/** The child serving copies now, with the requests it has not answered yet (answered in order). */
let copier: { child: ChildProcess; pending: Pending[]; timer: NodeJS.Timeout | undefined; timeoutMs: number; out: string } | null = null;

function startCopier(timeoutMs: number): NonNullable<typeof copier> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  if (isPlainNode(process.execPath)) delete env.ELECTRON_RUN_AS_NODE;
  else env.ELECTRON_RUN_AS_NODE = '1'; // VS Code's runtime runs as Node
  const child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'ignore'], env });
  const state = { child, pending: [] as Pending[], timer: undefined as NodeJS.Timeout | undefined, timeoutMs, out: '' };
  const failAll = (err: Error) => {
    clearTimeout(state.timer);
    if (copier === state) copier = null;
    for (const p of state.pending.splice(0)) p.reject(err);
  };
  child.stdin.on('error', () => undefined); // a child gone: its close fails what waits
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    state.out += d;
    for (let nl = state.out.indexOf('\n'); nl >= 0; nl = state.out.indexOf('\n')) {
      const line = state.out.slice(0, nl);
      state.out = state.out.slice(nl + 1);
      const head = state.pending.shift();
      if (!head) continue;
      try {
        head.resolve(OutcomeSchema.parse(JSON.parse(line)));
      } catch (err) {
        head.reject(failure(`the copy's helper process answered what it should not: ${(err as Error).message}`, 'EIO'));
      }
      watch(state);
    }
  });
  child.once('error', (err) => failAll(err));
  child.once('close', () => failAll(failure("the copy's helper process ended without an answer", 'EIO')));
  return state;
}

/** The limit runs for the request the child is on: restarted at each answer, off when none waits. */
function watch(state: NonNullable<typeof copier>): void {
  clearTimeout(state.timer);
  if (state.pending.length === 0) {
    // Nothing waits: the child ends at the end of its input, and the next copy starts another.
    if (copier === state) copier = null;
    state.child.stdin!.end();
    return;
  }
  state.timer = setTimeout(() => {
    if (copier === state) copier = null;
    const stuck = state.pending.splice(0);
    state.child.kill('SIGKILL');
    // The copies the child may have begun are ours (made with COPYFILE_EXCL, before the agent runs).
    void Promise.all(stuck.map((p) => fs.rm(p.dest, { force: true }).catch(() => undefined))).then(() => {
      const err = failure(`the copy did not finish within ${Math.max(1, Math.round(state.timeoutMs / 1000))} s and was stopped (its file system does not answer)`, 'ETIMEDOUT');
      for (const p of stuck) p.reject(err);
    });
  }, state.timeoutMs);
}

/** Copies a small regular file in the copier child, which is killed when it gives no answer for `timeoutMs`; a big or sparse one is left to the caller. */
export function copySmallInChild(source: string, dest: string, sparseFrom: number, timedFrom: number, timeoutMs: number): Promise<SmallCopyOutcome> {
  if (copier === null || copier.timeoutMs !== timeoutMs) copier = startCopier(timeoutMs);
  const state = copier;
  return new Promise((resolve, reject) => {
    state.pending.push({ resolve, reject, dest });
    state.child.stdin!.write(`${JSON.stringify({ source, dest, sparseFrom, timedFrom })}\n`);
    if (state.pending.length === 1) watch(state);
  });
}
