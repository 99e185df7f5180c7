/**
 * A clean filter that answers once and then hangs (bug 124): the capture's `add` was stopped at its
 * bound (600 s), then started again from HEAD and stopped again, and the capture failed, every retry,
 * for as long as the filter hung. A stopped `add` now counts as a failure that names no path: the
 * files a filter reads are left out of the next run (archived as they are on disk by evidence.ts),
 * and the capture goes on. The bound is made short here (StageOptions.addTimeoutMs).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import { stageEverything } from '../../../../src/core/git/snapshotIndex';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { filtersOff, writeTree } from '../../../../src/core/git/filteredPaths';
import { isGitTimeout, NO_HOOKS_ENV, runGit } from '../../../../src/core/git/runGit';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

describe('git: a clean filter that answers once, then hangs, in the capture\'s add (bug 124)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n', '.gitattributes': '*.h filter=once\n' });
    wt = sb.agentWorktree(repo);
  });

  it('leaves the files a filter reads out of the add, once, and stages the rest', async () => {
    // The first file it is given passes through; every later one hangs (a filter whose server died after one answer).
    const count = sb.path('filter-calls');
    git(repo, 'config', 'filter.once.clean', `n=$(cat '${count}' 2>/dev/null || echo 0); echo $((n+1)) > '${count}'; if [ "$n" = 0 ]; then cat; else sleep 50; fi`);
    write(wt, 'a.h', 'one\n');
    write(wt, 'b.h', 'two\n');
    write(wt, 'c.h', 'three\n');
    write(wt, 'README.md', 'edited\n');
    write(wt, 'new.txt', 'new\n');
    const tempIndex = sb.path('scratch-index');
    const env = { GIT_INDEX_FILE: tempIndex, GIT_WORK_TREE: wt, ...NO_HOOKS_ENV };
    const realIndex = path.resolve(wt, git(wt, 'rev-parse', '--git-path', 'index'));
    const started = Date.now();
    const refused = await stageEverything({ worktree: wt, realIndex, tempIndex, env, nestedRepos: [], addTimeoutMs: 3000 });
    assert.deepEqual(refused.sort(), ['a.h', 'b.h', 'c.h']);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.notEqual(readFileSync(count, 'utf8').trim(), '0', 'the filter was asked');
    // The rest is staged as usual: the edit, the new file.
    const inScratch = (spec: string) => execFileSync('git', ['show', spec], { cwd: wt, env: { ...process.env, GIT_INDEX_FILE: tempIndex }, encoding: 'utf8' });
    assert.equal(inScratch(':README.md'), 'edited\n');
    assert.equal(inScratch(':new.txt'), 'new\n');
  });

  // Review found: writing the index runs each "racily clean" entry (its file written in the second of the
  // index's last write) through its clean filter, an excluded one too, so every later add hung as well.
  it('a racily clean tracked file of such a filter: left out, its staged blob kept, and the tree written', async () => {
    git(repo, 'config', 'filter.hx.clean', `case "$GIT_INDEX_FILE" in *scratch-index*) sleep 50;; *) sed s/o/oo/g;; esac`);
    write(wt, '.gitattributes', '*.h filter=hx\n');
    write(wt, 'a.h', 'one\n');
    const when = Math.floor(Date.now() / 1000) - 10 + 0.5;
    utimesSync(path.join(wt, 'a.h'), when, when);
    git(wt, 'add', '.gitattributes', 'a.h');
    const realIndex = path.resolve(wt, git(wt, 'rev-parse', '--git-path', 'index'));
    // The index written in the same second as the file: its entry is racily clean.
    utimesSync(realIndex, when, when);
    write(wt, 'README.md', 'edited\n');
    const tempIndex = sb.path('scratch-index');
    const env = { GIT_INDEX_FILE: tempIndex, GIT_WORK_TREE: wt, ...NO_HOOKS_ENV };
    const started = Date.now();
    const refused = await stageEverything({ worktree: wt, realIndex, tempIndex, env, nestedRepos: [], addTimeoutMs: 3000 });
    assert.deepEqual(refused, ['a.h']);
    const written = await writeTree(wt, env, await filtersOff(wt, env));
    assert.equal(written.code, 0, written.stderr);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(git(repo, 'show', `${written.stdout.trim()}:a.h`), 'oone', 'the staged blob, in its filtered form');
    assert.equal(git(repo, 'show', `${written.stdout.trim()}:README.md`), 'edited');
  });

  // The same for the copy of the agent's own index, whose tree keeps what it staged: writing that tree
  // wrote the copy, and ran its racily clean entries through the filter (this one hangs only there).
  it("the copy of the agent's index is written with no filter either", async () => {
    git(repo, 'config', 'filter.hx.clean', `case "$GIT_INDEX_FILE" in *agent-index*) sleep 50;; *) sed s/o/oo/g;; esac`);
    write(wt, '.gitattributes', '*.h filter=hx\n');
    write(wt, 'a.h', 'one\n');
    // Written "after" the copy will be: its entry is racily clean in the copy however fast the capture.
    const later = Date.now() / 1000 + 30;
    utimesSync(path.join(wt, 'a.h'), later, later);
    git(wt, 'add', '.gitattributes', 'a.h');
    const started = Date.now();
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(git(repo, 'show', `${ev.snapshotSha}:a.h`), 'oone');
  });

  // Review found: every rejection of the add was taken for a stop at its bound, a git that could not be run too.
  it('only a stop at the bound counts as one: a git that cannot be run does not', async () => {
    git(repo, 'config', 'filter.slow.clean', 'sleep 50');
    write(wt, 'x.slow', 'x\n');
    write(wt, '.gitattributes', '*.slow filter=slow\n');
    const stopped = await runGit(['add', 'x.slow'], { cwd: wt, timeoutMs: 1000 }).then(() => null, (err: unknown) => err);
    assert.ok(stopped instanceof Error && isGitTimeout(stopped), String(stopped));
    const notRun = await runGit(['add', '-A'], { cwd: sb.path('no-such-folder'), timeoutMs: 1000 }).then(() => null, (err: unknown) => err);
    assert.ok(notRun instanceof Error && !isGitTimeout(notRun), String(notRun));
  });
});
