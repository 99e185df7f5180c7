/** Compare Attempts on real attempts after the base moved on and was brought in (Update from Base). */
import * as assert from 'node:assert/strict';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileChanges } from '../../../../src/core/attempts/attemptTree';
import { comparisonMarkdown, comparisonText } from '../../../../src/core/attempts/compareReport';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

describe('Compare Attempts: what each attempt changed', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  // Bug: once an attempt brought the base in, the base's new files counted as the attempt's own
  // changes (and, brought into two attempts, as lines they added "in common").
  it('counts only the attempt\'s own changes after Update from Base, by merge or by rebase', async () => {
    const script = "printf 'mine %s\\n' \"$PADDOCK_AGENT_ID\" > mine.txt && git add -A && git commit -qm mine";
    const c = sb.coordinator({ profiles: { one: { command: 'sh', args: ['-c', script] } } });
    const { jobs } = await c.startAttempts({ repo: sb.repo, title: 'task' }, 3, ['one', 'one', 'one']);
    for (const job of jobs) await sb.waitEnded(job.id);
    writeFileSync(join(sb.repo, 'base.txt'), 'base line one\nbase line two\n');
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'the base moves on');
    await c.update(jobs[0].id, {});
    await c.update(jobs[1].id, { rebase: true });
    const compared = await c.compare(jobs[0].group!.id);
    for (const row of compared.attempts) {
      assert.equal(row.unavailable, null);
      assert.deepEqual(row.files.map((f) => f.path), ['mine.txt'], row.id);
    }
    assert.deepEqual(compared.attempts.map((a) => a.commits), [2, 1, 1], 'the merge commit and the agent\'s; the replayed one; the one not updated');
    assert.equal(compared.commonCount, 0, 'the base\'s lines are no attempt\'s');
  });

  // Bug 182: attempts that differ only by an executable bit, or by a symbolic link in place of a file
  // of the same text, read the same (+1 −0 each): Compare Attempts did not tell them apart.
  it('says which file is executable and which is a symbolic link where the line counts are the same', async () => {
    const profiles = {
      plain: { command: 'sh', args: ['-c', "printf 'run\\n' > tool.sh"] },
      exec: { command: 'sh', args: ['-c', "printf 'run\\n' > tool.sh; chmod +x tool.sh"] },
      link: { command: 'sh', args: ['-c', 'ln -s run tool.sh'] },
    };
    const c = sb.coordinator({ profiles });
    const { jobs } = await c.startAttempts({ repo: sb.repo, title: 'task' }, 3, ['plain', 'exec', 'link']);
    for (const job of jobs) await sb.waitEnded(job.id);
    const compared = await c.compare(jobs[0].group!.id);
    const files = compared.attempts.map((a) => a.files.map((f) => [f.path, f.added, f.removed, f.kind]));
    assert.deepEqual(files, [[['tool.sh', 1, 0, undefined]], [['tool.sh', 1, 0, 'executable']], [['tool.sh', 1, 0, 'symlink']]]);
    const text = comparisonText(compared);
    assert.match(text, /\+1 −0 {2}tool\.sh \(executable\)/);
    assert.match(text, /\+1 −0 {2}tool\.sh \(symlink\)/);
    assert.match(comparisonMarkdown(compared), /\| tool\\\.sh \(symlink\) \| 1 \| 0 \|/);
    // The link's target is no line of text: only the two files' `run` is in common.
    assert.deepEqual(compared.common.map((l) => [l.path, l.text, l.attempts.length]), [['tool.sh', 'run', 2]]);
  });

  // Bug 182 (review): a deleted executable, and the old side of a rename (listed as delete + add),
  // were labelled "(executable)", which reads as "made executable".
  it('labels no deleted executable, nor the old name of a renamed one', async () => {
    writeFileSync(join(sb.repo, 'gone.sh'), 'x\n', { mode: 0o755 });
    writeFileSync(join(sb.repo, 'e1.sh'), 'e\n', { mode: 0o755 });
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'two executables');
    rmSync(join(sb.repo, 'gone.sh'));
    renameSync(join(sb.repo, 'e1.sh'), join(sb.repo, 'e2.sh'));
    git(sb.repo, 'add', '-A');
    git(sb.repo, 'commit', '-qm', 'one deleted, one renamed');
    const files = await fileChanges(sb.repo, 'HEAD~1', 'HEAD');
    assert.deepEqual(files.map((f) => [f.path, f.kind]), [['e1.sh', undefined], ['e2.sh', 'executable'], ['gone.sh', undefined]]);
  });

  // Bug 81: an attempt whose record was damaged was counted as forgotten ("1 attempt was forgotten"),
  // while `list` showed it unreadable and `forget` could still remove it.
  it('names an attempt whose record cannot be read as unreadable, not forgotten, and compares the rest', async () => {
    const c = sb.coordinator({ profiles: { one: { command: 'sh', args: ['-c', "printf 'mine\\n' > mine.txt"] } } });
    const { jobs } = await c.startAttempts({ repo: sb.repo, title: 'task' }, 3, ['one']);
    for (const job of jobs) await sb.waitEnded(job.id);
    const [schemaBroken, notJson, fine] = jobs;
    const record = (id: string) => join(sb.store.jobDir(id), 'job.json');
    const raw = JSON.parse(readFileSync(record(schemaBroken.id), 'utf8')) as { lifecycle: { state: string } };
    writeFileSync(record(schemaBroken.id), JSON.stringify({ ...raw, lifecycle: { ...raw.lifecycle, state: 'bogus' } }));

    const one = await c.compare(fine.group!.id);
    assert.deepEqual(one.attempts.map((a) => a.id), [notJson.id, fine.id]);
    assert.equal(one.missing, 0, 'none was forgotten');
    assert.deepEqual(one.unreadable.map((u) => [u.id, u.certain]), [[schemaBroken.id, true]]);
    const text = comparisonText(one);
    assert.doesNotMatch(text, /forgotten/);
    assert.match(text, new RegExp(`^${schemaBroken.id}: unreadable: .+; its changes are not compared$`, 'm'));
    assert.doesNotMatch(comparisonMarkdown(one), /forgotten/);

    // A record that is not JSON at all does not say whose it was: named as one that may be, not "forgotten".
    writeFileSync(record(notJson.id), '{"trunc');
    const two = await c.compare(fine.group!.id);
    assert.deepEqual(two.attempts.map((a) => a.id), [fine.id]);
    assert.equal(two.attempts[0].files.length, 1, 'the rest is compared');
    assert.deepEqual(two.unreadable.map((u) => [u.id, u.certain]).sort(), [[notJson.id, false], [schemaBroken.id, true]].sort());
    assert.match(comparisonText(two), /^\(1 attempt not in the list: forgotten, or among the unreadable records named\)$/m);
    assert.match(comparisonText(two), new RegExp(`^${notJson.id}: unreadable \\(it may be one of these attempts\\): `, 'm'));

    // Review of bug 81: with every attempt still listed unreadable, compare said "no group, or all forgotten".
    const fineRaw = JSON.parse(readFileSync(record(fine.id), 'utf8')) as { lifecycle: { state: string } };
    writeFileSync(record(fine.id), JSON.stringify({ ...fineRaw, lifecycle: { ...fineRaw.lifecycle, state: 'bogus' } }));
    await assert.rejects(c.compare(fine.group!.id), (e: Error) => {
      assert.match(e.message, new RegExp(`^Every attempt of group ${fine.group!.id} still listed has a record that cannot be read: .+; nothing was compared\\.$`));
      for (const id of [schemaBroken.id, fine.id]) assert.ok(e.message.includes(`${id} (the record does not match the schema`), `names ${id}: ${e.message}`);
      assert.doesNotMatch(e.message, /forgotten/);
      return true;
    });
  });
});
