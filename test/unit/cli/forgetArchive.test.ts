/**
 * `paddock forget` and `prune` never delete an archive that holds work without consent (bug 51):
 * the archive is the only copy of what the snapshot ref does not hold (ignored files, a nested
 * repository's git dir). Without --yes forget exits 1 with one sentence saying what it holds and
 * changes nothing, byte for byte; with --yes it goes; with no archive, forget goes ahead as before.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { assertOneSentence, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

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

  it('refuses to forget an agent whose archive holds an ignored file, changing nothing; --yes forgets it', async () => {
    const id = await cleaned(`printf '.env\\n' > .gitignore && printf 'TOKEN=only-here\\n' > .env`);
    const archive = join(sb.store.jobDir(id), 'evidence', 'archive.tar');
    assert.ok(existsSync(archive), 'the ignored file was archived');
    const before = folderBytes(sb.store.jobDir(id));

    const refused = await cli(['forget', id]);
    assert.equal(refused.code, 1, refused.stderr);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, /\(1 file\): ignored files or files git would not add/);
    assert.match(refused.stderr, /--yes/);
    assert.match(refused.stderr, new RegExp(`paddock restore ${id}`));
    assert.deepEqual(folderBytes(sb.store.jobDir(id)), before, 'the job folder and its archive are byte-identical');
    assert.equal((await cli(['show', id])).code, 0, 'still listed');

    // prune without --yes names the archive and deletes nothing either.
    const pruneAsked = await cli(['prune']);
    assert.equal(pruneAsked.code, 2);
    assert.match(pruneAsked.stdout, new RegExp(`${id} .*deletes an archive of .*\\(1 file\\): ignored files`));
    assert.match(pruneAsked.stderr, /the archives of 1 of them/);
    assert.deepEqual(folderBytes(sb.store.jobDir(id)), before);

    const forgot = await cli(['forget', id, '--yes']);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal(existsSync(sb.store.jobDir(id)), false, 'the job folder is gone');
    assert.ok(git(sb.repo, 'for-each-ref', `refs/paddock/snapshots/${id}`).length > 0, 'the snapshot ref is kept');
  });

  it("refuses to forget an agent whose archive holds a nested repository's git dir", async () => {
    const id = await cleaned('mkdir inner && cd inner && git init -q && printf x > f && git add f && git commit -qm only-here');
    const before = folderBytes(sb.store.jobDir(id));
    const refused = await cli(['forget', id]);
    assert.equal(refused.code, 1, refused.stderr);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, /the nested repository inner whole with its git dir/);
    assert.match(refused.stderr, /may exist nowhere else/);
    assert.deepEqual(folderBytes(sb.store.jobDir(id)), before, 'the job folder and its archive are byte-identical');

    const pruned = await cli(['prune', '--yes']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /Removed 1 agent\(s\) from the list/);
    assert.equal(existsSync(sb.store.jobDir(id)), false, 'prune --yes deletes it');
  });

  it('forgets at once an agent whose cleanup archived nothing', async () => {
    const id = await cleaned('printf tracked > tracked.txt');
    assert.equal(existsSync(join(sb.store.jobDir(id), 'evidence', 'archive.tar')), false);
    const forgot = await cli(['forget', id]);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal(existsSync(sb.store.jobDir(id)), false);
  });
});
