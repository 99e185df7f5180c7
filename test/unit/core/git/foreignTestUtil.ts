/** A sandbox for the foreign-worktree tests: the agent's repository and worktree, another repository, and `sub` inside the worktree. */
import * as path from 'node:path';
import type { CaptureOptions } from '../../../../src/core/git/evidence';
import { Sandbox, git, useGitSandbox, write } from './gitTestUtil';

export interface ForeignSandbox {
  sb: Sandbox;
  repo: string;
  other: string;
  wt: string;
  sub: string;
  options(extra?: Partial<CaptureOptions>): CaptureOptions;
  /** The agent's `git -C other worktree add $WT/sub --detach` and a commit there; returns it. */
  foreignCommit(): string;
  /** What the other repository's own gc does once the folder is gone. */
  forget(r: string): void;
}

export function foreignSandbox(): ForeignSandbox {
  const t = {} as ForeignSandbox;
  useGitSandbox((fresh) => {
    t.sb = fresh;
    t.repo = fresh.repo({ 'README.md': 'hello\n' });
    t.other = fresh.repo({ 'other.txt': 'another project\n' }, 'other');
    t.wt = fresh.path('wt');
    git(t.repo, 'worktree', 'add', '-q', '-b', 'paddock/job1', t.wt, 'main');
    t.sub = path.join(t.wt, 'sub');
  });
  t.options = (extra = {}) => ({
    repo: t.repo,
    worktree: t.wt,
    jobId: 'job1',
    patchPath: t.sb.path('store', 'evidence', 'snapshot.patch'),
    baseSha: git(t.repo, 'rev-parse', 'main'),
    branch: 'paddock/job1',
    ...extra,
  });
  t.foreignCommit = () => {
    git(t.other, 'worktree', 'add', '-q', '--detach', t.sub);
    write(t.sub, 'made-there.txt', 'committed in the other repository\n');
    git(t.sub, 'add', 'made-there.txt');
    git(t.sub, 'commit', '-q', '-m', 'work in a worktree of another repository');
    return git(t.sub, 'rev-parse', 'HEAD');
  };
  t.forget = (r: string) => {
    git(r, 'worktree', 'prune');
    git(r, 'reflog', 'expire', '--expire=now', '--all');
    git(r, 'gc', '-q', '--prune=now');
  };
  return t;
}
