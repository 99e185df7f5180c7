/**
 * The CLI contract of start/list/show/retry/cleanup through the real bundle
 * (dist/cli.js): --json field shapes, exit statuses, one-sentence errors.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertOneSentence, CLI_SCRIPT, CoordinatorSandbox, REPO_ROOT, runCli, sleep, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

const LIFECYCLE_KEYS = ['state', 'generation', 'exitCode', 'pid', 'workerPid', 'startedAt', 'endedAt', 'detail'];
const CLEANUP_KEYS = ['phase', 'remaining', 'stage', 'failures', 'nextAttemptAt', 'lastError', 'needsAttention', 'holders'];
const EVIDENCE_KEYS = ['patch', 'snapshotRef', 'headSha'];
const TOP_KEYS = ['id', 'title', 'repo', 'worktree', 'branch', 'base', 'command', 'lifecycle', 'cleanup', 'evidence'];

function assertShape(job: Record<string, unknown>): void {
  for (const k of TOP_KEYS) assert.ok(k in job, `missing ${k}`);
  assert.equal(typeof job.id, 'string');
  assert.ok(Array.isArray(job.command));
  const lifecycle = job.lifecycle as Record<string, unknown>;
  for (const k of LIFECYCLE_KEYS) assert.ok(k in lifecycle, `missing lifecycle.${k}`);
  if (job.cleanup !== null) {
    const cleanup = job.cleanup as Record<string, unknown>;
    for (const k of CLEANUP_KEYS) assert.ok(k in cleanup, `missing cleanup.${k}`);
    assert.ok(Array.isArray(cleanup.remaining));
    assert.ok(Array.isArray(cleanup.holders));
  }
  if (job.evidence !== null) {
    const evidence = job.evidence as Record<string, unknown>;
    for (const k of EVIDENCE_KEYS) assert.ok(k in evidence, `missing evidence.${k}`);
  }
}

describe('CLI: start, list, show, retry, cleanup', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[], opts: { cwd?: string; input?: string } = {}) => runCli(args, { cwd: opts.cwd ?? sb.repo, env: sb.env, input: opts.input ?? '' });

  it('start prints the id; --json prints the documented record; list/show agree', async () => {
    const plain = await cli(['start', '--title', 'plain', '--', 'true']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^[a-z0-9]{6,12}\n$/);
    const json = await cli(['start', '--json', '--title', 'json one', '--', 'sh', '-c', 'echo hi']);
    assert.equal(json.code, 0, json.stderr);
    const record = JSON.parse(json.stdout);
    assertShape(record);
    assert.equal(record.title, 'json one');
    assert.equal(record.repo, sb.repo);
    assert.equal(record.branch, `paddock/${record.id}`);
    assert.equal(record.base, 'HEAD');
    assert.deepEqual(record.command, ['sh', '-c', 'echo hi']);
    assert.equal(record.cleanup, null);
    assert.equal(record.evidence, null);
    assert.ok(existsSync(record.worktree));
    await sb.waitEnded(record.id);

    const list = await cli(['list', '--json']);
    assert.equal(list.code, 0, list.stderr);
    const all = JSON.parse(list.stdout) as Record<string, unknown>[];
    assert.equal(all.length, 2);
    all.forEach(assertShape);
    assert.deepEqual(all.map((j) => j.title), ['plain', 'json one']);

    const show = await cli(['show', record.id, '--json']);
    assert.equal(show.code, 0, show.stderr);
    const shown = JSON.parse(show.stdout);
    assertShape(shown);
    assert.equal(shown.lifecycle.state, 'completed');
    assert.equal(shown.lifecycle.exitCode, 0);

    const human = await cli(['list']);
    assert.match(human.stdout, /json one/);
    const other = await cli(['list', '--json', '--repo', sb.root], {});
    assert.equal(other.code, 2, 'a folder outside any repository is bad input');
  });

  it('cleanup --yes --json fills cleanup and evidence; without --yes off a terminal it is a usage error', async () => {
    const started = JSON.parse((await cli(['start', '--json', '--', 'sh', '-c', 'echo x > f.txt'])).stdout);
    await sb.waitEnded(started.id);
    const refused = await cli(['cleanup', started.id]);
    assert.equal(refused.code, 2);
    assertOneSentence(refused.stderr);
    assert.match(refused.stderr, /--yes/);
    assert.ok(existsSync(started.worktree), 'nothing was removed');

    const done = await cli(['cleanup', started.id, '--yes', '--json']);
    assert.equal(done.code, 0, done.stderr);
    const record = JSON.parse(done.stdout);
    assertShape(record);
    assert.equal(record.cleanup.phase, 'complete');
    assert.deepEqual(record.cleanup.remaining, []);
    assert.equal(record.evidence.snapshotRef, `refs/paddock/snapshots/${started.id}`);
    assert.match(record.evidence.headSha, /^[0-9a-f]{40}$/);
    assert.ok(existsSync(record.evidence.patch));
    assert.equal(existsSync(started.worktree), false);

    const again = await cli(['cleanup', started.id, '--yes']);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already cleaned up/);
  });

  it('cleanup that cannot finish exits 1 with the reason', async () => {
    const started = JSON.parse((await cli(['start', '--json', '--', 'true'])).stdout);
    await sb.waitEnded(started.id);
    const holder = sb.spawnOwned('sleep', ['60'], started.worktree);
    const res = await cli(['cleanup', started.id, '--yes']);
    assert.equal(res.code, 1);
    assertOneSentence(res.stderr);
    assert.match(res.stderr, new RegExp(`incomplete at removing: held by pid ${holder}`));
    const shown = JSON.parse((await cli(['show', started.id, '--json'])).stdout);
    assert.equal(shown.cleanup.phase, 'incomplete');
    assert.ok(shown.cleanup.holders.some((h: { pid: number }) => h.pid === holder));
  });

  // Found by hand: an interrupt that came once the teardown had ended changed nothing (Paddock's own
  // steps finish), yet the command exited 130 without saying the agent was cleaned up.
  it('cleanup interrupted after its teardown has ended finishes, says it cleaned up and exits 0', async () => {
    const ended = join(sb.root, 'teardown-ended');
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ teardown: `touch ${ended}` }));
    assert.equal((await cli(['allow'])).code, 0);
    // Enough untracked files that the capture after the teardown takes a while.
    const started = JSON.parse((await cli(['start', '--json', '--', 'sh', '-c', 'mkdir many && for i in $(seq 1 4000); do echo $i > many/f$i; done'])).stdout);
    await sb.waitEnded(started.id);
    const cleaning = spawn(process.execPath, [CLI_SCRIPT, 'cleanup', started.id, '--yes'], { cwd: sb.repo, env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cleaning.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    cleaning.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => cleaning.once('close', resolve));
    while (!existsSync(ended)) await sleep(5);
    cleaning.kill('SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /^Interrupted: ending the teardown if one runs/);
    assert.match(stdout, new RegExp(`^Cleaned up agent ${started.id}: `));
    const shown = JSON.parse((await cli(['show', started.id, '--json'])).stdout);
    assert.equal(shown.cleanup.phase, 'complete');
  });

  it('show says where the work stands against the base (words, and a standing object in --json)', async () => {
    const commit = 'git -c user.name=t -c user.email=t@t';
    const started = JSON.parse((await cli(['start', '--json', '--', 'sh', '-c', `printf 'a\\nb\\n' > a.txt && git add -A && ${commit} commit -qm a && echo x > loose.txt`])).stdout);
    await sb.waitEnded(started.id);
    const shown = JSON.parse((await cli(['show', started.id, '--json'])).stdout);
    assert.deepEqual(shown.standing, { baseName: 'main', ahead: 1, behind: 0, files: 1, insertions: 2, deletions: 0, uncommittedFiles: 1, merged: false });
    const human = await cli(['show', started.id]);
    assert.match(human.stdout, /^work: +1 commit ahead of main · 1 file \+2 −0 · uncommitted changes$/m);
  });

  it('retry starts a new generation and refuses a cleaned-up agent', async () => {
    const started = JSON.parse((await cli(['start', '--json', '--', 'sh', '-c', 'exit 4'])).stdout);
    const failed = await sb.waitEnded(started.id);
    assert.equal(failed.lifecycle.state, 'failed');
    const retried = await cli(['retry', started.id, '--json']);
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(JSON.parse(retried.stdout).lifecycle.generation, 2);
    await sb.waitEnded(started.id);
    assert.equal((await cli(['cleanup', started.id, '--yes'])).code, 0);
    const refused = await cli(['retry', started.id]);
    assert.equal(refused.code, 2);
    assertOneSentence(refused.stderr);
  });

  it('bad ids and bad usage give one sentence and exit 2; failed operations exit 1', async () => {
    const cases: [string[], number, RegExp][] = [
      [['show', 'NOT-AN-ID'], 2, /not a Paddock agent id/],
      [['show', 'abcdef12'], 2, /No agent abcdef12/],
      [['show'], 2, /Missing ID/],
      [['show', 'abcdef12', 'extra'], 2, /Unexpected argument/],
      [['retry', '../../etc'], 2, /not a Paddock agent id/],
      [['cleanup', 'abcdef12', '--yes'], 2, /No agent abcdef12/],
      [['list', '--bogus'], 2, /bogus/],
      [['frobnicate'], 2, /unknown command 'frobnicate'/],
      [['--bogus'], 2, /unknown option/],
      [['start', 'stray'], 2, /Unexpected argument 'stray'/],
      [['start', '--'], 2, /No command after --/],
      [['start', '--profile', 'nope', '--', 'true'], 2, /Unknown profile 'nope'/],
      [['start', '--repo', '/', '--', 'true'], 2, /not inside a git repository/],
      [['start', '--base', 'no-such-ref', '--', 'true'], 2, /^paddock start: Base 'no-such-ref' is not a commit/],
      [['start', '--attempts', '2', '--base', 'no-such-ref', '--', 'true'], 2, /^paddock start: Base 'no-such-ref' is not a commit/],
      [['start', '--', 'paddock-no-such-command'], 2, /'paddock-no-such-command' is not on PATH\.\n$/],
      // A fresh machine has no agent CLI: the default profile's, a named one's and a bare one's missing program say what to do (bug 83).
      [['start'], 2, /^paddock start: Command 'claude' is not on PATH; install it, or start the built-in demo agent \(profile 'demo'\), which needs no agent CLI\.\n$/],
      [['start', '--profile', 'aider'], 2, /Command 'aider' is not on PATH; install it, or start the built-in demo agent/],
      [['start', '--', 'codex', 'fix it'], 2, /Command 'codex' is not on PATH; install it, or start the built-in demo agent/],
    ];
    for (const [args, code, pattern] of cases) {
      const res = await cli(args);
      assert.equal(res.code, code, `${args.join(' ')}: ${res.stderr}`);
      assertOneSentence(res.stderr);
      assert.match(res.stderr, pattern, args.join(' '));
    }
    assert.deepEqual(sb.branches(), ['main'], 'failed starts left no branch');
    assert.deepEqual(await sb.store.list(), [], 'bad input left no agent (bug 49)');
  });

  it('--help lists every command and exits 0', async () => {
    const res = await cli(['--help']);
    assert.equal(res.code, 0);
    for (const verb of ['start', 'list', 'show', 'attach', 'send', 'screen', 'logs', 'stop', 'retry', 'cleanup', 'coordinate']) {
      assert.match(res.stdout, new RegExp(`paddock ${verb}\\b`));
    }
    const sub = await cli(['cleanup', '--help']);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /paddock cleanup ID/);
    assert.match(res.stdout, /paddock --version +Print the version\./);
  });

  it('--version prints the version of the package the CLI belongs to', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const res = await cli(['--version']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `paddock ${version}\n`);
    assert.equal(res.stderr, '');
  });
});
