/**
 * Bug 219: the standing read the agent's branch's commit beside HEAD (bug 186) and, when that look failed,
 * judged from HEAD as before it: a failed look could say "merged into main" of a worktree off its branch.
 * The look here fails as git's answer would when it cannot be read (a `git` ahead of the real one in PATH
 * answers the branch's rev-parse with no commit id; a `reftable` beside the refs keeps the files from saying).
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { StandingCache } from '../../../../src/core/git/standingCache';
import type { JobRecord } from '../../../../src/core/store/schema';
import { Sandbox, useGitSandbox, git, commitIn } from './gitTestUtil';

describe('git/standing: a failed look at the agent\'s branch never says merged (bug 219)', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  let startedAt: string;
  let shims: string;
  const realPath = process.env.PATH;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'a.txt': 'one\n' });
    startedAt = git(repo, 'rev-parse', 'HEAD');
    wt = sb.path('wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'paddock/abc123', wt, 'main');
  });
  afterEach(() => {
    process.env.PATH = realPath;
    if (shims) rmSync(shims, { recursive: true, force: true });
  });

  const job = (): JobRecord =>
    ({
      id: 'abc123',
      repo,
      worktree: wt,
      branch: 'paddock/abc123',
      base: 'HEAD',
      baseSha: startedAt,
      cleanup: null,
      landing: null,
      lifecycle: { state: 'completed', generation: 1, lastActivityAt: null, endedAt: null },
    }) as unknown as JobRecord;

  /** From here on, git answers the look at the agent's branch with no commit id. */
  function failBranchLook(): void {
    shims = mkdtempSync(path.join(tmpdir(), 'paddock-git-'));
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const shim = path.join(shims, 'git');
    writeFileSync(shim, `#!/bin/sh\nfor a in "$@"; do [ "$a" = 'refs/heads/paddock/abc123^{commit}' ] && { echo not-a-commit; exit 0; }; done\nexec ${real} "$@"\n`);
    chmodSync(shim, 0o755);
    process.env.PATH = `${shims}${path.delimiter}${realPath}`;
    writeFileSync(path.join(repo, '.git', 'reftable'), '');
  }

  it('the base checked out detached in the agent\'s worktree, the branch unread: no "merged"', async () => {
    commitIn(wt, 'b.txt', 'b\n');
    // The agent's work is not on main; its worktree holds main's tip, detached (as a rebase stopped half-way does).
    commitIn(repo, 'c.txt', 'c\n');
    git(wt, 'checkout', '-q', '--detach', 'main');
    const cache = new StandingCache();
    await cache.refresh([job()]);
    assert.equal(cache.get('abc123')?.merged, false, 'read, the branch is not merged');
    failBranchLook();
    const failed = new StandingCache();
    await failed.refresh([job()]);
    assert.notEqual(failed.get('abc123')?.merged, true, 'a failed look said merged');
    assert.match(failed.entry('abc123')?.error ?? '', /paddock\/abc123/);
  });
});
