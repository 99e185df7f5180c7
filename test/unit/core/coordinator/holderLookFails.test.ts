/**
 * Bug 195: on the portable backend who holds a worktree is an `lsof` of every cwd, an `lsof +D`, and
 * a `ps` for the holders' command lines. A run of any of them that failed (killed by its timeout, at
 * the process limit) was read as "nobody holds it", and cleanup removed the worktree a live process
 * was working in. Shims ahead of the real tools in PATH fail as those runs would; lsof's own "none"
 * (exit 1, nothing printed: measured with lsof 4.95 here) is still none.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { removeJobWorktree, StageFailure } from '../../../../src/core/coordinator/cleanupRemoval';
import { captureEvidence } from '../../../../src/core/git/evidence';
import type { JobRecord } from '../../../../src/core/store/schema';
import { PortablePs } from '../proc/portablePs';
import { git, Sandbox, useGitSandbox, write } from '../git/gitTestUtil';

const REAL_LSOF = ['/usr/bin/lsof', '/usr/sbin/lsof', '/bin/lsof'].find((p) => existsSync(p));

describe('cleanup when the look for holders fails, portable backend (bug 195)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let shims: string;
  let ps: PortablePs;
  let holder: ChildProcess | undefined;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo, sb.path('repo.worktrees', 'job1'));
    write(wt, 'work.txt', "the agent's work\n");
  });

  beforeEach(() => {
    shims = mkdtempSync(path.join(tmpdir(), 'paddock-lsof-'));
    ps = new PortablePs(shims);
    ps.useBackend();
    ps.shim(':');
  });

  afterEach(() => {
    ps.restore();
    holder?.kill('SIGKILL');
    holder = undefined;
    rmSync(shims, { recursive: true, force: true });
  });

  const job = () => ({ id: 'job1', repo, worktree: wt, cleanup: null, evidence: null }) as unknown as JobRecord;
  const captured = async () =>
    (await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' })).stamp;

  /** An `lsof` that runs `body` (sh) and then the real one, first in PATH (with the `ps` shim). */
  const lsofShim = (body: string) => writeFileSync(path.join(shims, 'lsof'), `#!/bin/sh\n${body}\nexec ${REAL_LSOF} "$@"\n`, { mode: 0o755 });

  /** A process working in the worktree, as an agent's escaped build would. */
  async function holderInWorktree(): Promise<number> {
    holder = spawn('sleep', ['60'], { cwd: wt, stdio: 'ignore' });
    await new Promise((resolve) => holder!.once('spawn', resolve));
    return holder.pid!;
  }

  const refusedUnlooked = (e: StageFailure) => e.stage === 'removing' && /could not tell whether a process is working in .*nothing was removed/.test(e.message);

  it('an lsof that keeps failing: the removal refuses in words, the worktree stays with its holder', async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    await holderInWorktree();
    lsofShim('kill -9 $$');
    await assert.rejects(removeJobWorktree(job(), wt, stamp), refusedUnlooked);
    assert.ok(existsSync(path.join(wt, 'work.txt')), 'the worktree was removed under its holder');
  });

  it('an lsof that fails with words (exit 1) on its first runs: the holder is still found', async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    const pid = await holderInWorktree();
    lsofShim(`for n in 1 2 3 4; do if mkdir '${shims}/failed-'$n 2>/dev/null; then echo "lsof: can't fork" >&2; exit 1; fi; done`);
    await assert.rejects(removeJobWorktree(job(), wt, stamp), (e: StageFailure) => new RegExp(`held by pid ${pid} \\(sleep\\)`).test(e.message));
    assert.ok(existsSync(path.join(wt, 'work.txt')), 'the worktree was removed under its holder');
  });

  it("the holders' ps that keeps failing: refused in words, never read as the holder gone", async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    await holderInWorktree();
    ps.shim('case " $* " in *" -p "*) kill -9 $$;; esac');
    await assert.rejects(removeJobWorktree(job(), wt, stamp), refusedUnlooked);
    assert.ok(existsSync(path.join(wt, 'work.txt')), 'the worktree was removed under its holder');
  });

  // Bug 210: `lsof +D` looks at every file below the worktree, and had one 10 s for all its runs: a
  // worktree with a large dependency tree (or a loaded machine) was refused at every retry.
  it('an lsof +D that takes longer than 10 s (a large worktree): the holder is still found', async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    const pid = await holderInWorktree();
    lsofShim('case " $* " in *" +D "*) sleep 11;; esac');
    await assert.rejects(removeJobWorktree(job(), wt, stamp), (e: StageFailure) => new RegExp(`held by pid ${pid} \\(sleep\\)`).test(e.message) || assert.fail(e.message));
    assert.ok(existsSync(path.join(wt, 'work.txt')), 'the worktree was removed under its holder');
  });

  it('an lsof that does not finish in its time: the refusal says so, not that something killed it (bug 210)', async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    await holderInWorktree();
    lsofShim('case " $* " in *" -d cwd "*) exec sleep 30;; esac');
    await assert.rejects(removeJobWorktree(job(), wt, stamp), (e: StageFailure) => (refusedUnlooked(e) && /lsof did not finish in the time it had/.test(e.message)) || assert.fail(e.message));
    assert.ok(existsSync(path.join(wt, 'work.txt')), 'the worktree was removed under its holder');
  });

  it("nobody holds it: lsof's exit 1 with nothing printed is still none, and the worktree goes", async function () {
    if (!REAL_LSOF || !ps.real) return this.skip();
    const stamp = await captured();
    lsofShim(':');
    assert.equal(await removeJobWorktree(job(), wt, stamp), 'worktree removed');
    assert.equal(existsSync(wt), false);
  });
});
