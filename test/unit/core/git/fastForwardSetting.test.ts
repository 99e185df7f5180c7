/**
 * git's merge.ff and branch.<target>.mergeOptions read as `git merge` reads them (bug 61): from
 * the repository's and the person's config, the last value winning, a value git does not know
 * ignored, the target branch's fast-forward options over merge.ff. Each answer is checked against
 * what `git merge` itself does in the same repository.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fastForwardSetting, type FastForwardPolicy } from '../../../../src/core/git';
import { git, Sandbox, useGitSandbox } from './gitTestUtil';

describe('git: fastForwardSetting', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  /** git with this process's environment (the test's global config), as the code under test runs it. */
  const gitAsPaddock = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

  /** What `git merge` does with a branch main could fast-forward to: 'allow' (fast-forward), 'never' (a merge commit) or 'only' (refused when it cannot). */
  function gitMergeDoes(repo: string): FastForwardPolicy {
    const main = git(repo, 'rev-parse', 'main');
    git(repo, 'checkout', '-q', '-b', 'probe-ahead');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'ahead');
    git(repo, 'checkout', '-q', '-b', 'probe-aside', main);
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'aside');
    git(repo, 'checkout', '-q', 'main');
    try {
      gitAsPaddock(repo, 'merge', '-q', '--no-edit', 'probe-ahead');
      const fastForwarded = git(repo, 'rev-parse', 'main') === git(repo, 'rev-parse', 'probe-ahead');
      let merged = true;
      try {
        gitAsPaddock(repo, 'merge', '-q', '--no-edit', 'probe-aside');
      } catch {
        merged = false;
      }
      return fastForwarded ? (merged ? 'allow' : 'only') : 'never';
    } finally {
      git(repo, 'reset', '-q', '--hard', main);
      git(repo, 'branch', '-q', '-D', 'probe-ahead', 'probe-aside');
    }
  }

  async function agrees(repo: string, policy: FastForwardPolicy, setBy: string | null): Promise<void> {
    assert.deepEqual(await fastForwardSetting(repo, 'main'), { policy, setBy });
    assert.equal(gitMergeDoes(repo), policy, 'as git merge does');
  }

  it('unset, true, false, only and git boolean words, as git merge reads them', async () => {
    const repo = sb.repo();
    await agrees(repo, 'allow', null);
    const cases: [string, FastForwardPolicy][] = [
      ['true', 'allow'],
      ['false', 'never'],
      ['only', 'only'],
      ['No', 'never'],
      ['on', 'allow'],
      ['0', 'never'],
      ['1', 'allow'],
    ];
    for (const [value, policy] of cases) {
      git(repo, 'config', 'merge.ff', value);
      await agrees(repo, policy, `merge.ff=${value}`);
    }
  });

  it('a key written without a value is true, an empty value false; an unknown value is ignored and the one before stays', async () => {
    const repo = sb.repo();
    git(repo, 'config', '--add', 'merge.ff', 'false');
    writeFileSync(`${repo}/.git/config`, '[merge]\n\tff\n', { flag: 'a' });
    await agrees(repo, 'allow', 'merge.ff=true');
    writeFileSync(`${repo}/.git/config`, '[merge]\n\tff =\n', { flag: 'a' });
    await agrees(repo, 'never', 'merge.ff=');
    writeFileSync(`${repo}/.git/config`, '[merge]\n\tff = someday\n', { flag: 'a' });
    await agrees(repo, 'never', 'merge.ff=');
  });

  it("the person's global config counts, and the repository's overrides it", async () => {
    const repo = sb.repo();
    const global = sb.path('global.gitconfig');
    writeFileSync(global, '[merge]\n\tff = false\n');
    process.env.GIT_CONFIG_GLOBAL = global;
    await agrees(repo, 'never', 'merge.ff=false');
    git(repo, 'config', 'merge.ff', 'only');
    await agrees(repo, 'only', 'merge.ff=only');
  });

  it("the target branch's mergeOptions fast-forward flags win over merge.ff; another branch's do not count", async () => {
    const repo = sb.repo();
    git(repo, 'config', 'merge.ff', 'false');
    git(repo, 'config', 'branch.other.mergeOptions', '--ff');
    await agrees(repo, 'never', 'merge.ff=false');
    git(repo, 'config', 'branch.main.mergeOptions', '--log --ff');
    await agrees(repo, 'allow', 'branch.main.mergeOptions --ff');
    git(repo, 'config', 'merge.ff', 'only');
    git(repo, 'config', 'branch.main.mergeOptions', '--no-ff');
    await agrees(repo, 'never', 'branch.main.mergeOptions --no-ff');
    git(repo, 'config', 'merge.ff', 'true');
    git(repo, 'config', 'branch.main.mergeOptions', '--no-ff --ff-only');
    await agrees(repo, 'only', 'branch.main.mergeOptions --ff-only');
  });
});
