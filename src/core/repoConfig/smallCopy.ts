/**
 * The look (lstat, open, fstat) and small copy of files under a mount point inside the repository
 * (mountPoints.ts), done by a child process that is killed at a time limit (bug 214). Done in
 * Paddock's own process, a file on a file system that stopped answering (an sshfs or NFS mount gone
 * away, a FUSE file that lists but never answers) held a libuv pool thread in lstat(2) or open(2)
 * for good: the start waited for ever, and so did the process's exit (libuv joins its pool threads
 * at exit; `process.exit` hung). A child stuck there dies with SIGKILL.
 *
 * Each placement has its own copier, so one repository's hung mount fails only its own start (a
 * copier shared by the process failed another repository's healthy start with it: the review of
 * bug 214). Its one child is spawned at the first file and serves them all until the placement
 * closes it. The child lstats (a symlink is answered with its text), opens as copyRegular.ts does
 * (without blocking, without following a link), fstats, and copies a small dense file through its
 * /proc/self/fd entry, so it copies what it checked. A big or sparse file is only reported:
 * bigCopy.ts copies it through a `cp` child under its own limit. Linux only: it needs /proc/self/fd.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { failure } from '../common/errors';
import * as z from '../common/zod';
import { isPlainNode } from '../worker/spawn';

/** A small file on a healthy disk copies in milliseconds; a spawn in a busy window in well under a second. */
export const SMALL_COPY_TIMEOUT_MS = 60_000;

/** What the child found: copied, why not (its error's code and message), a symlink's text, not a regular file, or one for bigCopy.ts. */
const OutcomeSchema = z.union([
  z.object({ copied: z.literal(true) }),
  z.object({ code: z.string().check(z.maxLength(100)), message: z.string().check(z.maxLength(10_000)) }),
  z.object({ link: z.string().check(z.maxLength(65_536)) }),
  z.object({ notRegular: z.literal(true) }),
  z.object({ big: z.literal(true) }),
]);
export type SmallCopyOutcome = z.infer<typeof OutcomeSchema>;

/** One file for the child: copied to `dest` when a regular file under `timedFrom` bytes, not sparse past `sparseFrom`. */
export interface SmallCopyRequest {
  source: string;
  dest: string;
  sparseFrom: number;
  timedFrom: number;
}

/**
 * Run by `node -e`: reads one JSON request a line on stdin, answers each in order with one JSON
 * line, written synchronously (stdout is a pipe); exits at the end of stdin.
 */
const CHILD = `
const fs = require('fs');
const c = fs.constants;
const failed = (e) => ({ code: String(e.code || 'EIO'), message: String(e.message) });
const one = ({ source, dest, sparseFrom, timedFrom }) => {
  let fd;
  try {
    const l = fs.lstatSync(source);
    if (l.isSymbolicLink()) return { link: fs.readlinkSync(source) };
    if (!l.isFile()) return { notRegular: true };
    fd = fs.openSync(source, c.O_RDONLY | c.O_NONBLOCK | c.O_NOFOLLOW);
  } catch (e) { return failed(e); }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { notRegular: true };
    if ((st.size > sparseFrom && st.blocks * 512 < st.size) || st.size >= timedFrom) return { big: true };
    fs.copyFileSync('/proc/self/fd/' + fd, dest, c.COPYFILE_EXCL | c.COPYFILE_FICLONE);
    return { copied: true };
  } catch (e) {
    return failed(e);
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

/** One placement's helper child: `copy` queues a file (answered in order), `close` lets the child end. */
export interface Copier {
  copy(req: SmallCopyRequest): Promise<SmallCopyOutcome>;
  close(): void;
}

/** A copier whose child is killed when it gives no answer for `timeoutMs`; spawned at the first copy. */
export function newCopier(timeoutMs: number): Copier {
  let child: ChildProcess | null = null;
  const pending: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let out = '';
  /** Set once the child cannot serve (killed, ended, closed): every copy after fails with it. */
  let dead: Error | null = null;
  const failAll = (err: Error) => {
    clearTimeout(timer);
    dead ??= err;
    for (const p of pending.splice(0)) p.reject(err);
  };
  // The limit runs for the request the child is on: restarted at each answer, off when none waits.
  const watch = () => {
    clearTimeout(timer);
    if (pending.length === 0) return;
    timer = setTimeout(() => {
      const err = failure(`the copy did not finish within ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped (its file system does not answer)`, 'ETIMEDOUT');
      dead ??= err;
      const stuck = pending.splice(0);
      child?.kill('SIGKILL');
      // The copies the child may have begun are ours (made with COPYFILE_EXCL, before the agent runs).
      void Promise.all(stuck.map((p) => fs.rm(p.dest, { force: true }).catch(() => undefined))).then(() => {
        for (const p of stuck) p.reject(err);
      });
    }, timeoutMs);
  };
  const onData = (d: string) => {
    out += d;
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      const head = pending.shift();
      if (!head) continue;
      try {
        head.resolve(OutcomeSchema.parse(JSON.parse(line)));
      } catch (err) {
        head.reject(failure(`the copy's helper process answered what it should not: ${(err as Error).message}`, 'EIO'));
      }
      watch();
    }
  };
  const start = (): ChildProcess => {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    if (isPlainNode(process.execPath)) delete env.ELECTRON_RUN_AS_NODE;
    else env.ELECTRON_RUN_AS_NODE = '1'; // VS Code's runtime runs as Node
    const c = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'ignore'], env });
    c.stdin!.on('error', () => undefined); // a child gone: its close fails what waits
    c.stdout!.setEncoding('utf8').on('data', onData);
    c.once('error', (err) => failAll(err));
    c.once('close', () => failAll(failure("the copy's helper process ended without an answer", 'EIO')));
    return c;
  };
  return {
    copy(req) {
      if (dead) return Promise.reject(dead);
      child ??= start();
      const c = child;
      return new Promise((resolve, reject) => {
        pending.push({ resolve, reject, dest: req.dest });
        c.stdin!.write(`${JSON.stringify(req)}\n`);
        if (pending.length === 1) watch();
      });
    },
    close() {
      // The end of its input ends the child once it has answered what it was sent.
      dead ??= failure('the placement had ended', 'EIO');
      child?.stdin!.end();
    },
  };
}
