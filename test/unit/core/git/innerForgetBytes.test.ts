/**
 * Bug 200, continued (found by review): the registrations of linked worktrees made inside the
 * agent's are listed by their bytes (`worktrees/bad\xff`), but the removal then checked, asked git
 * about and deleted that git dir by a string Node sends as UTF-8 (`worktrees/bad\ufffd`): the
 * person's own registration of that name was deleted, and the agent's was never forgotten. And the
 * capture read that git dir's reflogs by the same string: a commit only they knew was not kept.
 * Real repositories, real worktrees, folders named by raw bytes (bash `$'…'`).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { Sandbox, git, useGitSandbox } from './gitTestUtil';

/** A bash script (for its `$'…'` names), its output read as latin1 (one character per byte). */
function bash(script: string, env: Record<string, string>): string {
  return execFileSync('bash', ['-euc', script], { env: { ...process.env, ...env }, encoding: 'latin1', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}
const WHO = '-c user.name=A -c user.email=a@b.c';
/** The names in the repository's `.git/worktrees`, each as its bytes in hex. */
const REGISTRY = 'cd "$R"/.git/worktrees && for n in *; do [ -e "$n" ] || continue; printf %s "$n" | od -An -tx1 | tr -d " \\n"; echo; done';

describe('git: inner worktrees whose git dir is named by raw bytes (bug 200)', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  let wt: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo({ 'README.md': 'hello\n' });
    wt = sb.agentWorktree(repo);
  });
  const capture = () =>
    captureEvidence({ repo, worktree: wt, jobId: 'job1', patchPath: sb.path('store', 'evidence', 'snapshot.patch'), baseSha: git(repo, 'rev-parse', 'main'), branch: 'paddock/job1' });
  const restore = (target: string) =>
    restoreWorktree({ repo, snapshotRef: 'refs/paddock/snapshots/job1', evidenceDir: sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it("leaves the person's worktree registration bad\\ufffd alone when the agent's inner bad\\xff is forgotten", async () => {
    const person = sb.path('p');
    bash(
      `mkdir -p "$P" && git -C "$R" worktree add -q --detach "$P"/$'bad\\xef\\xbf\\xbd' main && printf 'person edit\\n' > "$P"/$'bad\\xef\\xbf\\xbd'/README.md
       cd "$WT" && git worktree add -q --detach $'bad\\xff' main`,
      { WT: wt, P: person, R: repo },
    );
    await capture();
    await removeWorktree(repo, wt);
    assert.equal(bash(`cd "$P"/$'bad\\xef\\xbf\\xbd' && git status --porcelain 2>&1 | tr ' ' _ || true`, { P: person }), '_M_README.md');
    assert.deepEqual(bash(REGISTRY, { R: repo }).split('\n'), ['626164efbfbd'], "the person's registration stays, the agent's inner one is forgotten");
  });

  it('forgets the inner worktree bad\\xff once its commit is kept, and restore links it again on that commit', async () => {
    bash(`cd "$WT" && git worktree add -q --detach $'bad\\xff' && cd $'bad\\xff' && printf 'n\\n' > n.txt && git add n.txt && git ${WHO} commit -q -m 'made inside'`, { WT: wt });
    const head = bash(`cd "$WT"/$'bad\\xff' && git rev-parse HEAD`, { WT: wt });
    await capture();
    await removeWorktree(repo, wt);
    assert.equal(bash(REGISTRY + ' 2>/dev/null || true', { R: repo }), '', 'not left registered (prunable) after the removal');
    const r = await restore(wt);
    assert.deepEqual(r.problems, []);
    assert.equal(bash(`cd "$WT"/$'bad\\xff' && git rev-parse HEAD && git status --short`, { WT: wt }), head);
  });

  // The reviewer's whole round trip (T1): a repository under bad\xff, with names in bytes, a staged,
  // a changed, an untracked and an ignored file, comes back as it was, byte for byte.
  it('a repository under bad\\xff comes back byte for byte: files, index, status and commits', async () => {
    const list = `cd "$D" && find . -path ./.git -prune -o \\( -type f -o -type l \\) -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do printf '%s %s\\n' "$(printf %s "$f" | od -An -tx1 | tr -d ' \\n')" "$( [ -L "$f" ] && readlink "$f" || sha1sum < "$f" | cut -c1-12)"; done | grep -v '/index ' ; cd "$D"/$'bad\\xff'/inner && git status --porcelain --ignored && git log --format=%s`;
    bash(
      `cd "$WT" && mkdir $'bad\\xff' && printf 'f\\xfe\\n' > $'bad\\xff'/$'f\\xfe.txt' && printf ign > $'bad\\xff'/ign1 && cd $'bad\\xff' && git init -q -b main inner && cd inner
       printf 'x\\n' > x.txt && printf 'y\\n' > $'y\\xfe.txt' && git add . && git ${WHO} commit -q -m x && git ${WHO} commit -q --allow-empty -m second
       printf 'mod\\n' > x.txt && printf 'st\\n' > staged.txt && git add staged.txt && printf 'u\\n' > $'u\\xfd' && echo 'ig*' > .git/info/exclude && printf ig > $'ig\\xfc'`,
      { WT: wt },
    );
    const before = bash(list, { D: wt });
    assert.match(before, /^2e2f626164ff2f66fe2e747874 /m, 'the listing names bad\xff/f\xfe.txt by its bytes');
    await capture();
    await removeWorktree(repo, wt);
    const r = await restore(wt);
    assert.deepEqual(r.problems, []);
    assert.equal(bash(list, { D: wt }), before);
  });

  for (const [label, name] of [['good', 'good'], ['bad\\xff', "$'bad\\xff'"]]) {
    it(`keeps a commit only the reflog of inner worktree ${label} knows`, async () => {
      bash(
        `cd "$WT" && git worktree add -q --detach ${name} main && cd ${name} && printf 'n\\n' > n.txt && git add n.txt && git ${WHO} commit -q -m A
         printf 'm\\n' > m.txt && git add m.txt && git ${WHO} commit -q -m B && git rev-parse HEAD > "$SB"/b && git reset -q --hard HEAD~1`,
        { WT: wt, SB: sb.dir },
      );
      const b = bash('cat "$SB"/b', { SB: sb.dir });
      await capture();
      await removeWorktree(repo, wt);
      bash('cd "$R" && git worktree prune && git reflog expire --expire=now --all && git gc -q --prune=now', { R: repo });
      assert.equal(bash('git -C "$R" cat-file -t $B 2>&1 || true', { R: repo, B: b }), 'commit');
    });
  }
});
