/**
 * Review mends of bug 85: which nested checkout is a worktree of another repository (one whose
 * registration names it back; a `cp -r` copy is plain files), when restore may advise linking it
 * (only while the registration is still this folder's; never `worktree repair`), and long paths.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { captureEvidence } from '../../../../src/core/git/evidence';
import { readManifest } from '../../../../src/core/git/evidenceManifest';
import { restoreWorktree } from '../../../../src/core/git/restore';
import { removeWorktree } from '../../../../src/core/git/worktree';
import { git, write } from './gitTestUtil';
import { foreignSandbox } from './foreignTestUtil';

describe('git: a worktree of another repository: whose it is, and restore\'s advice', function () {
  this.timeout(120_000);
  const t = foreignSandbox();
  const restore = (snapshotRef: string, target: string) => restoreWorktree({ repo: t.repo, snapshotRef, evidenceDir: t.sb.path('store', 'evidence'), target, branch: 'paddock/job1' });

  it('a `cp -r` copy of some worktree of another repository is plain files, not that worktree', async () => {
    const elsewhere = t.sb.path('elsewhere');
    git(t.other, 'worktree', 'add', '-q', '--detach', elsewhere);
    git(elsewhere, 'commit', '-q', '--allow-empty', '-m', 'made in the real one');
    cpSync(elsewhere, path.join(t.wt, 'copy'), { recursive: true });
    const ev = await captureEvidence(t.options());
    assert.equal(ev.summary.foreignWorktrees, undefined);
    assert.equal(JSON.parse(readFileSync(ev.inventory, 'utf8')).foreign, undefined);
  });

  it('after the other repository pruned it and made a new worktree of the same name, restore does not advise a repair that would take that one over', async () => {
    t.foreignCommit();
    const ev = await captureEvidence(t.options());
    await removeWorktree(t.repo, t.wt);
    git(t.other, 'worktree', 'prune');
    const newcomer = t.sb.path('later', 'sub');
    mkdirSync(path.dirname(newcomer));
    git(t.other, 'worktree', 'add', '-q', '--detach', newcomer);
    assert.equal(readFileSync(path.join(t.other, '.git', 'worktrees', 'sub', 'gitdir'), 'utf8').trim(), path.join(newcomer, '.git'), 'the same registration name');
    const result = await restore(ev.snapshotRef, t.sb.path('moved'));
    assert.ok(!result.problems.some((p) => /worktree repair/.test(p)), result.problems.join('\n'));
    assert.ok(result.problems.some((p) => /^sub was a worktree of .*that registration is another folder's now/.test(p)), result.problems.join('\n'));
  });

  // Bug 197: the advice was `git -C <dir> worktree repair`, which rewrites every checkout of that
  // repository (bug 176). It now names the two linking files; followed as given, it links this one.
  it('restored elsewhere while the registration still names its old place with the recorded HEAD, restore advises writing its two linking files, never a repair', async () => {
    t.foreignCommit();
    const ev = await captureEvidence(t.options());
    await removeWorktree(t.repo, t.wt);
    const moved = t.sb.path('moved');
    const result = await restore(ev.snapshotRef, moved);
    const note = result.problems.find((p) => /^sub is a worktree of .*registered at its old place: /.test(p));
    assert.ok(note, result.problems.join('\n'));
    assert.doesNotMatch(note, /`git -C [^`]*worktree repair`/, 'no repair to run');
    assert.match(note, /link it \(those two files only: not `git worktree repair`, which rewrites every checkout that repository registers\)/);
    const commands = [...note.matchAll(/`(f=[^`]*mktemp [^`]*)`/g)].map((m) => m[1]!);
    assert.equal(commands.length, 2, note);
    for (const command of commands) execFileSync('bash', ['-c', command]);
    const sub = path.join(moved, 'sub');
    assert.equal(git(sub, 'rev-parse', '--show-toplevel').trim(), sub, 'git works in it, as itself');
    assert.match(git(t.other, 'worktree', 'list', '--porcelain'), new RegExp(`worktree ${sub.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`), 'its repository registers it here');
  });

  it('a legal long path with control characters keeps the inventory readable: its words are shortened', async () => {
    const parts = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'\x01'.repeat(200)}`);
    const deep = path.join(t.wt, ...parts);
    mkdirSync(path.dirname(deep), { recursive: true });
    git(t.other, 'worktree', 'add', '-q', '--detach', deep);
    git(deep, 'commit', '-q', '--allow-empty', '-m', 'made deep');
    const ev = await captureEvidence(t.options());
    const words = ev.summary.foreignWorktrees?.[0] ?? '';
    assert.ok(words.length <= 8192 && words.includes('…'), `${words.length}`);
    const manifest = await readManifest(ev.inventory);
    assert.equal(manifest.foreign?.[0]?.count, 1);
  });

  it('a command the person is told to run never holds a shortened path (it would name another folder): too long, it is named without it', async () => {
    const deep = path.join(t.wt, ...Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'\x01'.repeat(200)}`));
    mkdirSync(path.dirname(deep), { recursive: true });
    git(t.other, 'worktree', 'add', '-q', '--detach', deep);
    write(deep, 'staged.txt', 'staged\n');
    git(deep, 'add', 'staged.txt');
    await assert.rejects(captureEvidence(t.options()), (err: unknown) => {
      const commands = String((err as Error).message).match(/`[^`]*`/g) ?? [];
      assert.ok(commands.some((c) => c.startsWith('`git worktree move')), String(err));
      for (const c of commands) assert.ok(!c.includes('…'), c);
      return true;
    });
  });
});
