/**
 * The aside socket files workers bind to before linking them into place (socketFile.ts), left by a
 * worker killed in between, and the job sockets a cleanup removes: on real sockets held by real
 * processes, only a file whose owner is provably gone and that nothing serves is ever removed.
 */
import * as assert from 'node:assert/strict';
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { asideName, removeDeadAsides, removeDeadSocket } from '../../../../src/core/protocol/asideSockets';
import { removeJobSockets, socketPathFor } from '../../../../src/core/protocol/runtimeDir';
import { ControlSocket } from '../../../../src/core/worker/controlSocket';
import { probeSocket } from '../../../../src/core/protocol/socketProbe';

/** Binds (and with `listen`, listens on) an aside name in its own pid's format, or the old one; prints the path. */
const HOLDER = `
import os, secrets, socket, sys
d, kind, listen = sys.argv[1], sys.argv[2], sys.argv[3] == 'listen'
def b36(n):
    s = ''
    while n:
        n, r = divmod(n, 36)
        s = '0123456789abcdefghijklmnopqrstuvwxyz'[r] + s
    return s
name = '.' + secrets.token_hex(8) if kind == 'old' else '.' + b36(os.getpid()) + '-' + secrets.token_hex(5)
p = os.path.join(d, name)
s = socket.socket(socket.AF_UNIX)
s.bind(p)
if listen:
    s.listen(1)
print(p, flush=True)
sys.stdin.read()
`;

interface Holder {
  path: string;
  child: ChildProcessWithoutNullStreams;
  killed(): Promise<void>;
}

async function holder(dir: string, kind: 'new' | 'old', listen: boolean): Promise<Holder> {
  const child = spawn('python3', ['-c', HOLDER, dir, kind, listen ? 'listen' : 'bind']);
  const path = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    path,
    child,
    killed: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('core/protocol/asideSockets', function () {
  this.timeout(20_000);
  let dir: string;
  const holders: Holder[] = [];
  beforeEach(() => (dir = mkdtempSync('/tmp/pdk-as-')));
  afterEach(async () => {
    for (const h of holders.splice(0)) await h.killed();
    rmSync(dir, { recursive: true, force: true });
  });

  const hold = async (kind: 'new' | 'old', listen: boolean) => {
    const h = await holder(dir, kind, listen);
    holders.push(h);
    return h;
  };

  it('names the owner: .<pid in base 36>-<hex>, no longer than asked', () => {
    const name = asideName(4194304, 16);
    assert.match(name, /^\.2hwcg-[0-9a-f]{10}$/);
    assert.equal(name.length, 17);
  });

  it('removes the aside file of a worker killed before linking it, once its process is gone', async () => {
    const h = await hold('new', true);
    assert.deepEqual(await removeDeadAsides(dir), [], 'its owner listens: kept');
    await h.killed();
    assert.equal(existsSync(h.path), true, 'a SIGKILLed process unlinks nothing');
    assert.deepEqual(await removeDeadAsides(dir), [h.path]);
    assert.equal(existsSync(h.path), false);
  });

  it('never removes one a live owner has bound and not yet listens on (it refuses connections), in either naming', async function () {
    if (!existsSync('/proc/net/unix')) this.skip();
    const fresh = await hold('new', false);
    const old = await hold('old', false);
    assert.deepEqual(await removeDeadAsides(dir), [], 'both refuse connections, both owners live');
    assert.equal(existsSync(fresh.path) && existsSync(old.path), true);
    await fresh.killed();
    await old.killed();
    assert.deepEqual((await removeDeadAsides(dir)).sort(), [fresh.path, old.path].sort(), 'gone once their owners are');
  });

  it('keeps a dead aside file named for a process that exists (a pid reused), and touches no other file', async () => {
    const h = await hold('new', true);
    await h.killed();
    const mine = join(dir, asideName(process.pid, 16));
    renameSync(h.path, mine);
    const other = await hold('new', true);
    await other.killed();
    renameSync(other.path, join(dir, 'abc.sock'));
    assert.deepEqual(await removeDeadAsides(dir), []);
    assert.deepEqual(readdirSync(dir).sort(), [mine.slice(dir.length + 1), 'abc.sock'].sort());
  });

  it("a worker starting to listen removes what a killed worker left beside its socket", async () => {
    const h = await hold('new', true);
    await h.killed();
    const logs: string[] = [];
    const socket = new ControlSocket({ accept: (s) => s.destroy(), log: (m) => logs.push(m) });
    try {
      await socket.listen(join(dir, 'w.sock'));
      const until = Date.now() + 5000;
      while (existsSync(h.path) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      assert.equal(existsSync(h.path), false, 'the leftover is gone');
      assert.deepEqual(readdirSync(dir), ['w.sock'], 'and only it: the worker keeps its own');
      assert.match(logs.join('\n'), /left by workers killed/);
    } finally {
      socket.dispose();
    }
  });

  it('a cleanup removes a job socket nothing serves, never one a live process serves at that path', async () => {
    const env = { PADDOCK_RUNTIME_DIR: dir };
    const live = await hold('new', true);
    renameSync(live.path, socketPathFor('job-a', 1, env));
    const dead = await hold('new', true);
    await dead.killed();
    renameSync(dead.path, socketPathFor('job-a', 2, env));
    assert.equal(await removeJobSockets('job-a', 2, env), 1);
    assert.equal(existsSync(socketPathFor('job-a', 1, env)), true, 'the live listener keeps its path');
    assert.equal(existsSync(socketPathFor('job-a', 2, env)), false);
  });

  // Found by review of bug 90: the file was unlinked by its name after the last look, so a worker
  // placing its live socket there in between (a rename over the dead one, a link into the freed path)
  // lost it. Now it is moved to a name of the remover's own first and unlinked there.
  it('a worker placing its live socket at the path as a cleanup removes the dead one keeps it: right after the judgement, right after the last look', async () => {
    const env = { PADDOCK_RUNTIME_DIR: dir };
    const path = socketPathFor('job-r', 1, env);
    for (const stage of ['judged', 'moved'] as const) {
      const dead = await hold('new', true);
      await dead.killed();
      renameSync(dead.path, path);
      const live = await hold('new', true);
      const removed = await removeDeadSocket(path, async (at) => {
        if (at !== stage) return;
        // A worker's placeSocket: a rename over a file it judged dead, a link into an empty path.
        if (existsSync(path)) renameSync(live.path, path);
        else linkSync(live.path, path);
      });
      assert.equal(removed, stage === 'moved', stage);
      assert.equal(lstatSync(path).isSocket(), true, `${stage}: the live socket is at its path`);
      assert.equal(await probeSocket(path), 'alive', `${stage}: and served there`);
      const left = readdirSync(dir).filter((n) => n !== live.path.slice(dir.length + 1));
      assert.deepEqual(left, [path.slice(dir.length + 1)], `${stage}: nothing else left`);
      await live.killed();
      rmSync(path, { force: true });
      rmSync(live.path, { force: true });
    }
  });

  // Found by review of bugs 89/90: a window's cleanup runs both sweeps inside the extension host, whose
  // event loop must never wait on the disk; they listed, stat'ed, unlinked and read /proc/net/unix synchronously.
  it('sweeps without one synchronous file-system call (a window runs it on its event loop)', async function () {
    if (!existsSync('/proc/net/unix')) this.skip();
    const env = { PADDOCK_RUNTIME_DIR: dir };
    const dead = [await hold('new', true), await hold('old', true), await hold('new', true)];
    for (const h of dead) await h.killed();
    renameSync(dead[2].path, socketPathFor('job-s', 1, env));
    const names = ['readdirSync', 'lstatSync', 'statSync', 'readFileSync', 'unlinkSync', 'renameSync', 'linkSync', 'existsSync'] as const;
    const calls: string[] = [];
    // The module object itself (an `import *` is a frozen copy): what the code under test calls through.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fsm = require('node:fs') as Record<string, (...args: unknown[]) => unknown>;
    const saved = names.map((n) => fsm[n]);
    names.forEach((n, i) => (fsm[n] = (...args: unknown[]) => (calls.push(`${n}(${String(args[0])})`), saved[i](...args))));
    let removed: string[];
    let jobSockets: number;
    try {
      removed = await removeDeadAsides(dir);
      jobSockets = await removeJobSockets('job-s', 1, env);
    } finally {
      names.forEach((n, i) => (fsm[n] = saved[i]));
    }
    assert.deepEqual(calls, []);
    assert.deepEqual(removed.sort(), [dead[0].path, dead[1].path].sort());
    assert.equal(jobSockets, 1);
    assert.deepEqual(readdirSync(dir), []);
  });
});

