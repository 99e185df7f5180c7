/**
 * Many entries git cannot even stat (bug 121): in a folder that can be listed but not searched,
 * git's `add` dies at the first one ("fatal: unable to stat"), naming one a run, so 64 or more
 * failed every capture, Clean Up Anyway included, and the coordinator retried it forever. The
 * walk already knows them: they are left out from the first run, and the capture asks consent
 * to lose them, or with it records them lost and keeps the rest.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { CaptureOptions } from '../../../../src/core/git/evidence';
import { CONSENT_NEEDED } from '../../../../src/core/git/evidence';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

/** Who captures when the tests run as root (root can stat anything). */
const NOBODY = 65534;

interface Outcome {
  code?: string;
  message?: string;
  lost?: number;
  snapshotSha?: string;
}

describe('git: a capture over many entries git cannot stat (bug 121)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let base: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', 'open/t.txt': 'tracked\n' });
    base = git(repo, 'rev-parse', 'main');
    wt = sb.agentWorktree(repo);
  });

  /** Each capture in a child process: as nobody over a sandbox handed to nobody when root, else as this user. */
  function captureAsOther(test: Mocha.Context, runs: CaptureOptions[]): Outcome[] {
    const asNobody = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
    if ('uid' in asNobody) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, sb.dir]);
    const evidence = require.resolve('../../../../src/core/git/evidence');
    const script = `
      const { captureEvidence } = require(${JSON.stringify(evidence)});
      (async () => {
        const out = [];
        for (const opts of JSON.parse(process.argv[1])) {
          try {
            const ev = await captureEvidence(opts);
            out.push({ lost: ev.summary.lostCount, snapshotSha: ev.snapshotSha });
          } catch (err) {
            out.push({ code: err.code, message: err.message });
          }
        }
        console.log(JSON.stringify(out));
      })();`;
    const res = spawnSync(process.execPath, ['-e', script, JSON.stringify(runs)], { env: process.env, encoding: 'utf8', timeout: 100_000, ...asNobody });
    if (res.status !== 0 && /EACCES|Cannot find module/.test(res.stderr)) test.skip(); // the built files are not readable by nobody here
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout) as Outcome[];
  }

  it('70 files in a folder that can be listed, not searched: consent asked once, and with it the rest is kept', async function () {
    write(wt, 'README.md', 'edited\n');
    mkdirSync(path.join(wt, 'shut'));
    for (let i = 1; i <= 70; i++) write(wt, `shut/f${i}.txt`, `${i}\n`);
    chmodSync(path.join(wt, 'shut'), 0o600);
    // Searched, not listed: git still reads the tracked file in it, which must not be left out with the rest.
    write(wt, 'open/t.txt', 'tracked, edited\n');
    chmodSync(path.join(wt, 'open'), 0o300);
    const options = (extra: Partial<CaptureOptions> = {}): CaptureOptions => ({
      repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1', ...extra,
    });
    let runs: Outcome[];
    try {
      runs = captureAsOther(this, [options(), options({ dropUnarchivable: true })]);
    } finally {
      chmodSync(path.join(wt, 'open'), 0o755);
      chmodSync(path.join(wt, 'shut'), 0o755); // or the sandbox cannot be deleted by its owner
      // Handed back from nobody (root's git refuses a repository another user owns).
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${process.getuid()}:${process.getgid?.() ?? 0}`, sb.dir]);
    }
    assert.equal(runs[0].code, CONSENT_NEEDED, runs[0].message);
    assert.match(runs[0].message!, /^Nothing was removed: some files cannot be read: .*shut\/f\d+\.txt \(cannot be read\).* and 66 more\. /);
    assert.equal(runs[1].code, undefined, runs[1].message);
    assert.equal(runs[1].lost, 71, 'the 70 files and the folder that cannot be listed');
    assert.equal(git(repo, 'show', `${runs[1].snapshotSha}:README.md`), 'edited');
    assert.equal(git(repo, 'show', `${runs[1].snapshotSha}:open/t.txt`), 'tracked, edited');
  });

  // Review found: git refuses an excluding pathspec that names an ignored path ("The following paths are
  // ignored…"), so ignored entries that cannot be stat'ed failed every capture once they were left out.
  it('ignored entries that cannot be stat\'ed, beside one that is not: consent asked, and with it the rest is kept', async function () {
    write(wt, '.gitignore', 'shut/\n*.log\n');
    write(wt, 'README.md', 'edited\n');
    for (let i = 1; i <= 3; i++) write(wt, `shut/f${i}.log`, `${i}\n`);
    write(wt, 'plain/a.log', 'ignored by its name\n');
    write(wt, 'plain/b.txt', 'not ignored\n');
    for (const folder of ['shut', 'plain']) chmodSync(path.join(wt, folder), 0o600);
    const options = (extra: Partial<CaptureOptions> = {}): CaptureOptions => ({
      repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: base, branch: 'paddock/job1', ...extra,
    });
    let runs: Outcome[];
    try {
      runs = captureAsOther(this, [options(), options({ dropUnarchivable: true })]);
    } finally {
      for (const folder of ['shut', 'plain']) chmodSync(path.join(wt, folder), 0o755);
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${process.getuid()}:${process.getgid?.() ?? 0}`, sb.dir]);
    }
    assert.equal(runs[0].code, CONSENT_NEEDED, runs[0].message);
    assert.match(runs[0].message!, /shut\/f1\.log \(cannot be read\)/);
    assert.equal(runs[1].code, undefined, runs[1].message);
    assert.equal(runs[1].lost, 5, 'the three in shut/, plain/a.log and plain/b.txt');
    assert.equal(git(repo, 'show', `${runs[1].snapshotSha}:README.md`), 'edited');
    assert.equal(git(repo, 'show', `${runs[1].snapshotSha}:.gitignore`), 'shut/\n*.log');
  });
});
