/**
 * A worktree's own ref naming a tag of a tag (bug 86): the capture kept the outer tag object's bytes
 * only, so after gc the restored ref named a tag whose inner tag (and the commit, or tree, it names)
 * was gone. Every tag of the chain and what it ends at are kept now, and written back.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { tagChain } from '../../../../src/core/git/tagChain';
import { Sandbox, git, useGitSandbox } from './gitTestUtil';

describe('git: a tag of a tag named by a worktree ref survives cleanup, gc and restore', function () {
  this.timeout(60_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
  });

  /** refs/worktree/chain → t3 → t2 → t1 → `target`, no tag ref left naming any of them; returns the tag objects, outer first. */
  function chainTo(target: string): string[] {
    const tag = (name: string, at: string) => git(wt, '-c', 'advice.nestedTag=false', 'tag', '-a', '-m', `${name}\u00e9`, name, at);
    tag('t1', target);
    tag('t2', 't1');
    tag('t3', 't2');
    const tags = ['t3', 't2', 't1'].map((t) => git(wt, 'rev-parse', `refs/tags/${t}`));
    git(wt, 'update-ref', 'refs/worktree/chain', tags[0]!);
    git(wt, 'tag', '-d', 't1', 't2', 't3');
    return tags;
  }

  async function roundTrip(): Promise<{ path: string; problems: string[] }> {
    const ev = await captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
    await removeWorktree(repo, wt);
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    git(repo, 'gc', '-q', '--prune=now');
    return restoreWorktree({ repo, snapshotRef: ev.snapshotRef, evidenceDir: sb.path('store', 'evidence'), target: sb.path('restored'), branch: 'paddock/job1' });
  }

  it('keeps every tag object of the chain and the commit only it names', async () => {
    const onlyTagged = git(wt, 'commit-tree', '-p', 'HEAD', '-m', 'named only through the tag chain', git(wt, 'rev-parse', 'HEAD^{tree}'));
    const tags = chainTo(onlyTagged);
    const result = await roundTrip();
    assert.deepEqual(result.problems, []);
    assert.equal(git(result.path, 'rev-parse', 'refs/worktree/chain'), tags[0]);
    for (const t of tags) assert.equal(git(result.path, 'cat-file', '-t', t), 'tag');
    assert.equal(git(result.path, 'rev-parse', 'refs/worktree/chain^{}'), onlyTagged);
    assert.equal(git(result.path, 'fsck', '--no-dangling', '--no-progress'), '');
  });

  it('keeps a chain that ends at a tree', async () => {
    const tree = execFileSync('git', ['mktree'], { cwd: wt, input: `100644 blob ${git(wt, 'hash-object', '-w', 'README.md')}\tonly.txt\n`, encoding: 'utf8' }).trim();
    const tags = chainTo(tree);
    const result = await roundTrip();
    assert.deepEqual(result.problems, []);
    assert.equal(git(result.path, 'rev-parse', 'refs/worktree/chain^{}'), tree);
    assert.equal(git(result.path, 'cat-file', '-t', tags[2]!), 'tag');
  });

  it('tagChain follows a chain of any depth to its end (70 tags: a bound of 64 dropped the deepest and the commit)', async () => {
    const head = git(wt, 'rev-parse', 'HEAD');
    let at = head;
    const tags: string[] = [];
    for (let i = 0; i < 70; i++) {
      at = execFileSync('git', ['mktag'], { cwd: wt, input: `object ${at}\ntype ${i === 0 ? 'commit' : 'tag'}\ntag d${i}\ntagger T <t@example.invalid> 0 +0000\n\ndeep\n`, encoding: 'utf8' }).trim();
      tags.unshift(at);
    }
    assert.deepEqual(await tagChain(wt, at), { tags, target: { sha: head, type: 'commit' } });
  });

  it('tagChain follows the chain to its end, outer tag first', async () => {
    const head = git(wt, 'rev-parse', 'HEAD');
    const tags = chainTo(head);
    assert.deepEqual(await tagChain(wt, tags[0]!), { tags, target: { sha: head, type: 'commit' } });
  });
});
