/**
 * `paddock forget` and `prune` never delete an archive that holds work unasked (bug 51): the archive
 * is the only copy of what the snapshot ref does not hold (ignored files, a nested repository's git
 * dir). forget (and prune) keep it, byte for byte, in the store's `kept/<id>` and say so; forget
 * --yes and prune --snapshots delete it; with no archive, forget goes ahead as before.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** Every entry under `dir` with its type and, for a file, the hash of its bytes. */
function folderBytes(dir: string, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const rel = `${prefix}${name}`;
    const stat = lstatSync(full);
    if (stat.isDirectory()) {
      out.set(rel, 'dir');
      for (const [k, v] of folderBytes(full, `${rel}/`)) out.set(k, v);
    } else out.set(rel, createHash('sha256').update(readFileSync(full)).digest('hex'));
  }
  return out;
}

describe('CLI: forget and prune keep an archive holding work unless told to delete it', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env, input: '' });
  const keptDir = (id: string) => join(sb.store.home, 'kept', id);

  /** An agent that runs `script` in its worktree, ended and cleaned up. */
  async function cleaned(script: string): Promise<string> {
    const res = await cli(['start', '--json', '--', 'sh', '-c', script]);
    assert.equal(res.code, 0, res.stderr);
    const { id } = JSON.parse(res.stdout) as { id: string };
    assert.equal((await sb.waitEnded(id)).lifecycle.state, 'completed');
    const clean = await cli(['cleanup', id, '--yes']);
    assert.equal(clean.code, 0, clean.stderr);
    return id;
  }

  it('forgets an agent whose archive holds an ignored file, keeping the evidence byte for byte in kept/<id>', async () => {
    const id = await cleaned(`printf '.env\\n' > .gitignore && printf 'TOKEN=only-here\\n' > .env`);
    const evidence = join(sb.store.jobDir(id), 'evidence');
    assert.ok(existsSync(join(evidence, 'archive.tar')), 'the ignored file was archived');
    const before = folderBytes(evidence);
    const record = readFileSync(join(sb.store.jobDir(id), 'job.json'));

    const forgot = await cli(['forget', id]);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.match(forgot.stdout, /\(1 file\): ignored files or files git would not add, is kept in /);
    assert.equal(existsSync(sb.store.jobDir(id)), false, 'the agent is gone from the list');
    const kept = folderBytes(keptDir(id));
    assert.deepEqual(new Map([...kept].filter(([k]) => k !== 'job.json')), before, 'its evidence is kept byte for byte');
    assert.deepEqual(readFileSync(join(keptDir(id), 'job.json')), record, 'with its record, saying whose it is');
    assert.ok(git(sb.repo, 'for-each-ref', `refs/paddock/snapshots/${id}`).length > 0, 'the snapshot ref is kept');
  });

  it('forget --yes deletes the archive; prune keeps a nested repository\'s git dir, prune --snapshots deletes it', async () => {
    const asked = await cleaned(`printf '.env\\n' > .gitignore && printf 'x\\n' > .env`);
    const deleted = await cli(['forget', asked, '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.doesNotMatch(deleted.stdout, /kept/);
    assert.equal(existsSync(keptDir(asked)), false, 'asked to, forget deletes it');

    const nested = await cleaned('mkdir inner && cd inner && git init -q && printf x > f && git add f && git commit -qm only-here');
    const plan = await cli(['prune']);
    assert.equal(plan.code, 2, 'not on a terminal and no --yes: nothing goes');
    assert.match(plan.stdout, new RegExp(`${nested} .*keeps in the store's kept/ folder an archive of .*the nested repository inner whole with its git dir`));
    const pruned = await cli(['prune', '--yes']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /Removed 1 agent\(s\) from the list; kept 1 archive\(s\) holding work in /);
    assert.ok(existsSync(join(keptDir(nested), 'gitdirs')) || existsSync(join(keptDir(nested), 'archive.tar')), 'the nested repository is kept');

    const again = await cleaned('mkdir inner && cd inner && git init -q && printf y > f && git add f && git commit -qm only-here-too');
    const listed = await cli(['prune', '--snapshots']);
    assert.match(listed.stdout, new RegExp(`${again} .*deletes refs/paddock/snapshots/${again}.*; deletes an archive of `));
    assert.match(listed.stdout, new RegExp(`${nested} .*removed from the list before.*deletes an archive of .* kept in ${keptDir(nested)}`));
    assert.match(listed.stderr, /the archives of 2 of them/);
    const all = await cli(['prune', '--snapshots', '--yes']);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(existsSync(keptDir(again)), false, 'prune --snapshots deletes what its plan listed');
    assert.equal(existsSync(keptDir(nested)), false, 'and the archive an earlier prune kept');
  });

  it('prune --snapshots deletes the archives kept by earlier forgets, within --older-than, leaving one it cannot read', async () => {
    const id = await cleaned(`printf '.env\\n' > .gitignore && printf 'TOKEN=only-here\\n' > .env`);
    assert.equal((await cli(['forget', id])).code, 0);
    const ref = `refs/paddock/snapshots/${id}`;
    assert.ok(existsSync(keptDir(id)) && git(sb.repo, 'for-each-ref', ref).length > 0);
    const unreadable = keptDir('zzzzzzzzzzzz');
    mkdirSync(unreadable, { recursive: true });
    writeFileSync(join(unreadable, 'job.json'), '{ not json');

    for (const args of [['prune', '--yes'], ['prune', '--snapshots', '--older-than', '1', '--yes']]) {
      const none = await cli(args);
      assert.equal(none.code, 0, none.stderr);
      assert.match(none.stdout, /No cleaned-up agent to remove\./, args.join(' '));
      assert.ok(existsSync(keptDir(id)), `${args.join(' ')} keeps it`);
    }
    const plan = await cli(['prune', '--snapshots']);
    assert.equal(plan.code, 2, 'not on a terminal and no --yes: nothing goes');
    assert.match(plan.stdout, new RegExp(`^${id}  .*removed from the list before\\); deletes ${ref} in .*; deletes an archive of .*\\(1 file\\).* kept in ${keptDir(id)}$`, 'm'));
    assert.match(plan.stdout, new RegExp(`^Left ${unreadable}: `, 'm'));
    assert.ok(existsSync(keptDir(id)));

    const pruned = await cli(['prune', '--snapshots', '--yes']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /deleted 1 snapshot ref\(s\), deleted 1 archive\(s\) kept when agents were removed before\./);
    assert.equal(existsSync(keptDir(id)), false, 'its archive is deleted');
    assert.equal(git(sb.repo, 'for-each-ref', ref), '', 'with its snapshot ref');
    assert.ok(existsSync(join(unreadable, 'job.json')), 'a folder whose record copy cannot be read is left');
    assert.deepEqual(readdirSync(join(sb.store.home, 'kept')), ['zzzzzzzzzzzz'], 'nothing half-deleted is left');
  });

  it('forgets at once an agent whose cleanup archived nothing', async () => {
    const id = await cleaned('printf tracked > tracked.txt');
    assert.equal(existsSync(join(sb.store.jobDir(id), 'evidence', 'archive.tar')), false);
    const forgot = await cli(['forget', id]);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.doesNotMatch(forgot.stdout, /kept/);
    assert.equal(existsSync(sb.store.jobDir(id)), false);
    assert.equal(existsSync(keptDir(id)), false);
  });
});
