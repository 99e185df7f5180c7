/**
 * A branch that is a symbolic ref (`git symbolic-ref refs/heads/alias refs/heads/main`) is checked
 * out, as git counts it, as the branch it ends at (bug 119, second review): a worktree whose HEAD
 * names alias has main checked out (`git worktree list` says so, `git branch -f main` refuses). The
 * worktree list read from git's files called that worktree's branch alias, so a landing on main
 * missed it: main moved past its uncommitted changes without a look, and the worktree was left
 * behind the branch (its next commit would undo the landing). It now follows the symbolic ref as git
 * does, wherever a HEAD's branch is read from files; `--into alias` lands on main likewise.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PaddockError } from '../../../../src/core/common/errors';
import { listWorktreesFromFiles, parseWorktreeList } from '../../../../src/core/git/worktreeList';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('landing: a branch that is a symbolic ref is checked out as the branch it ends at', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const COMMIT = `printf 'x\\n' > x.txt && git add -A && git commit -qm 'agent x'`;

  async function endedAgent(base: string) {
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['sh', '-c', COMMIT], title: 'work', base });
    const ended = await sb.waitEnded(job.id);
    assert.equal(ended.lifecycle.state, 'completed');
    return { c, job: ended };
  }

  const makeAlias = (): string => git(sb.repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');

  /** The main worktree moved to a branch of its own, and a linked worktree on `on`. */
  function aliasWorktree(on: string): string {
    git(sb.repo, 'switch', '-q', '-c', 'other');
    const wt = join(sb.root, 'wt');
    git(sb.repo, 'worktree', 'add', '-q', wt, on);
    return wt;
  }

  const refusedDirty = (e: PaddockError): boolean => {
    assert.equal(e.code, 'TARGET_DIRTY', e.message);
    assert.match(e.message, /^Branch main is checked out in .* with uncommitted changes \(README\.md\)/);
    return true;
  };

  it('base alias, alias checked out in a linked worktree with an edit: refused, main and the edit as they were', async () => {
    const main = git(sb.repo, 'rev-parse', 'main');
    makeAlias();
    const { c, job } = await endedAgent('alias');
    const wt = aliasWorktree('alias');
    writeFileSync(join(wt, 'README.md'), 'person edit\n');
    await assert.rejects(c.merge(job.id, {}), refusedDirty);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
    assert.equal(readFileSync(join(wt, 'README.md'), 'utf8'), 'person edit\n');
  });

  it('base alias, alias checked out in a clean linked worktree: main lands and that worktree is brought along, as git would', async () => {
    makeAlias();
    const { c, job } = await endedAgent('alias');
    const wt = aliasWorktree('alias');
    assert.equal((await c.merge(job.id, {})).into, 'main');
    const tip = git(sb.repo, 'rev-parse', job.branch!);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), tip);
    assert.equal(git(wt, 'rev-parse', 'HEAD'), tip);
    assert.equal(git(wt, 'status', '--porcelain'), '', 'the worktree is not left behind its branch');
    assert.ok(existsSync(join(wt, 'x.txt')));
  });

  it('base alias, the main worktree switched to alias with an edit: refused', async () => {
    const main = git(sb.repo, 'rev-parse', 'main');
    makeAlias();
    const { c, job } = await endedAgent('alias');
    git(sb.repo, 'switch', '-q', '-c', 'other');
    git(sb.repo, 'switch', '-q', 'alias');
    writeFileSync(join(sb.repo, 'README.md'), 'person edit\n');
    await assert.rejects(c.merge(job.id, {}), refusedDirty);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
    assert.equal(git(sb.repo, 'status', '--porcelain'), 'M README.md');
  });

  it('base main, alias checked out in a linked worktree with an edit: refused', async () => {
    const main = git(sb.repo, 'rev-parse', 'main');
    const { c, job } = await endedAgent('main');
    makeAlias();
    const wt = aliasWorktree('alias');
    writeFileSync(join(wt, 'README.md'), 'person edit\n');
    await assert.rejects(c.merge(job.id, {}), refusedDirty);
    assert.equal(git(sb.repo, 'rev-parse', 'main'), main);
  });

  it('--into alias lands on main: refused past an edit where main is checked out, and brings that worktree along when clean', async () => {
    const { c, job } = await endedAgent('main');
    makeAlias();
    writeFileSync(join(sb.repo, 'README.md'), 'person edit\n');
    await assert.rejects(c.merge(job.id, { into: 'alias' }), refusedDirty);
    git(sb.repo, 'checkout', '-q', '--', 'README.md');
    assert.equal((await c.merge(job.id, { into: 'alias' })).into, 'main');
    assert.equal(git(sb.repo, 'rev-parse', 'HEAD'), git(sb.repo, 'rev-parse', job.branch!));
    assert.equal(git(sb.repo, 'status', '--porcelain'), '');
  });

  it('the worktree list read from files is the one git gives: a chain of symbolic refs followed to its end, one leading to a tag left to git', async () => {
    makeAlias();
    git(sb.repo, 'symbolic-ref', 'refs/heads/alias2', 'refs/heads/alias');
    git(sb.repo, 'switch', '-q', '-c', 'other');
    git(sb.repo, 'worktree', 'add', '-q', join(sb.root, 'wt'), 'alias2');
    const porcelain = parseWorktreeList(git(sb.repo, 'worktree', 'list', '--porcelain', '-z')).entries;
    assert.deepEqual(await listWorktreesFromFiles(sb.repo), porcelain);
    assert.equal(porcelain[1].branch, 'main');
    git(sb.repo, 'tag', 'v1');
    git(sb.repo, 'symbolic-ref', 'refs/heads/totag', 'refs/tags/v1');
    git(sb.repo, 'worktree', 'add', '-q', join(sb.root, 'wt2'), 'totag');
    assert.equal(await listWorktreesFromFiles(sb.repo), undefined, 'a branch leading out of refs/heads is for git to list');
  });
});
