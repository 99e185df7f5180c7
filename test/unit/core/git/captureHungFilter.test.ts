/**
 * A clean filter that answers once and then hangs (bug 124): the capture's `add` was stopped at its
 * bound (600 s), then started again from HEAD and stopped again, and the capture failed, every retry,
 * for as long as the filter hung. A stopped `add` now counts as a failure that names no path: the
 * files a filter reads are left out of the next run (archived as they are on disk by evidence.ts),
 * and the capture goes on. The bound is made short here (StageOptions.addTimeoutMs).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { stageEverything } from '../../../../src/core/git/snapshotIndex';
import { NO_HOOKS_ENV } from '../../../../src/core/git/runGit';
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
});
