/**
 * Issue 11: an agent runs with the environment of the request that started it,
 * whoever launches it from the queue — and no secret value of that environment
 * reaches a file of the store or the runtime dir in clear. Real CLI, real
 * workers, the default four slots.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { stopJob } from '../../src/core/worker/stopJob';
import { allFileContents, cli, CLI, CliResult } from './faultKit';

const KEY = 'sk-ant-api03-requesterKey0123456789abcdef';
const TOKEN = 'requester-foo-token-7f3a9c';
const OTHER_KEY = 'sk-ant-api03-launcherKey9876543210fedcba';
const PRINT_ENV = ['sh', '-c', 'echo "key=$ANTHROPIC_API_KEY tok=$FOO_TOKEN"; printf "%s\\n%s\\n" "$ANTHROPIC_API_KEY" "$FOO_TOKEN" > seen.txt'];

describe('faults: the environment of a queued agent (issue 11)', function () {
  this.timeout(180_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const run = (args: string[], env: NodeJS.ProcessEnv = sb.env): CliResult => cli(args, env, sb.repo);
  const start = (command: string[], env?: NodeJS.ProcessEnv): { id: string; result: CliResult } => {
    const result = run(['start', '--repo', sb.repo, '--', ...command], env);
    assert.equal(result.code, 0, result.stderr);
    return { id: result.stdout.trim(), result };
  };
  const requester = () => ({ ...sb.env, ANTHROPIC_API_KEY: KEY, FOO_TOKEN: TOKEN });

  /** Four long agents fill the default slots; a fifth, started with secrets, is queued. */
  async function fillAndQueue(): Promise<{ long: string[]; queued: string }> {
    const long: string[] = [];
    for (let i = 0; i < 4; i++) long.push(start(['sleep', '600']).id);
    const queued = start(PRINT_ENV, requester());
    assert.match(queued.result.stderr, /is queued/);
    assert.equal((await sb.store.read(queued.id)).lifecycle.state, 'queued');
    return { long, queued: queued.id };
  }

  function assertNothingInClear(values: string[]): void {
    const files = [...allFileContents(sb.home), ...allFileContents(sb.env.PADDOCK_RUNTIME_DIR!)];
    assert.ok(files.length > 10, 'the store has files to check');
    for (const { path, text } of files) {
      for (const value of values) assert.ok(!text.includes(value), `${path} holds ${value.slice(0, 12)}… in clear`);
    }
  }

  it('a queued agent launched by another process runs with its requester’s environment; no secret is on disk in clear', async () => {
    const { long, queued } = await fillAndQueue();
    const sealed = join(sb.store.jobDir(queued), 'env.sealed');
    assert.equal(statSync(sealed).mode & 0o777, 0o600);
    assert.equal(statSync(join(sb.env.PADDOCK_RUNTIME_DIR!, 'env.key')).mode & 0o777, 0o600);

    // A slot frees; a process with another key (and no FOO_TOKEN) starts its own agent and pumps the queue.
    assert.equal(run(['stop', long[0]]).code, 0);
    const other = start(['sh', '-c', 'echo "other=$ANTHROPIC_API_KEY"; sleep 600'], { ...sb.env, ANTHROPIC_API_KEY: OTHER_KEY });

    const done = await sb.waitEnded(queued, 30_000);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    // First in, first out: the older queued agent took the slot; the newer one waited for the next
    // (which the first one's quick end may already have given it).
    const launchedAt = async (id: string) => (await sb.store.readTimeline(id)).find((e) => e.to === 'starting')?.at;
    const otherLaunched = await launchedAt(other.id);
    if (otherLaunched !== undefined) assert.ok(otherLaunched >= (await launchedAt(queued))!, 'the newer agent launched after the older one');
    assert.equal(readFileSync(join(done.worktree!, 'seen.txt'), 'utf8'), `${KEY}\n${TOKEN}\n`);

    const logs = run(['logs', queued]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /key=\[REDACTED\] tok=\[REDACTED\]/);
    assertNothingInClear([KEY, TOKEN, OTHER_KEY]);
  });

  it('`paddock coordinate` run without the secrets launches the queued agent with its requester’s', async () => {
    const { long, queued } = await fillAndQueue();
    const coordinator = spawn(process.execPath, [CLI, 'coordinate'], { env: { ...sb.env, FOO_TOKEN: 'launcher-token-value' }, cwd: sb.repo, stdio: 'ignore' });
    try {
      // Stopped through the store only: no CLI process pumps the queue, the coordinator loop must.
      await stopJob(sb.store, long[1], { force: true });
      const done = await sb.waitEnded(queued, 30_000);
      assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
      assert.equal(readFileSync(join(done.worktree!, 'seen.txt'), 'utf8'), `${KEY}\n${TOKEN}\n`);
      assertNothingInClear([KEY, TOKEN, 'launcher-token-value']);
    } finally {
      coordinator.kill('SIGTERM');
      await new Promise((r) => coordinator.once('exit', r));
    }
  });

  it('a lost key (a reboot) fails the launch with one sentence instead of using the launcher’s environment', async () => {
    const { long, queued } = await fillAndQueue();
    rmSync(join(sb.env.PADDOCK_RUNTIME_DIR!, 'env.key'));
    assert.equal(run(['stop', long[2]]).code, 0);
    const launcher = run(['start', '--repo', sb.repo, '--', 'true'], { ...sb.env, ANTHROPIC_API_KEY: OTHER_KEY });
    assert.equal(launcher.code, 0, launcher.stderr);
    const failed = await sb.waitEnded(queued, 30_000);
    assert.equal(failed.lifecycle.state, 'failed');
    assert.match(failed.lifecycle.detail ?? '', /(key to its saved environment is gone|saved environment cannot be decrypted).*start or retry it again/);
    assert.equal(failed.lifecycle.startedAt, null);
    assert.equal(existsSync(join(failed.repo + '.worktrees', queued, 'seen.txt')), false);
    assertNothingInClear([KEY, TOKEN, OTHER_KEY]);
  });
});
