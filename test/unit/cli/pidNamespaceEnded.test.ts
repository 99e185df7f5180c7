/**
 * Bug 109, as reviewed: a process recorded in a pid namespace that has ended (a closed Flatpak, a
 * restarted dev container) read "may be running" for good — `list` said running, stop, retry, cleanup
 * and forget were refused — and an old record read inside a container was no longer its own. Now the
 * initial namespace finds it or proves it gone, a namespace beside it asks the worker's socket, and an
 * untagged record is judged by its pid where that pid still names it. Needs root (or user
 * namespaces) for `unshare`: skips otherwise.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { CLI_SCRIPT, CliRun, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** `script` (bash, with $CLI the real CLI) as pid 1 of a new pid namespace: when it ends, so does everything in the namespace. */
function inNamespace(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', 'bash', '-c', script], { cwd, env: { ...env, CLI: `${process.execPath} ${CLI_SCRIPT}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Starts an agent there and waits until it runs; prints its id last. */
const START_RUNNING = `ID=$($CLI start --json -- sh -c 'sleep 600' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
for i in $(seq 100); do $CLI list --json | grep -q '"running"' && break; sleep 0.2; done`;

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function stateOf(run: CliRun, id: string): string | undefined {
  return (JSON.parse(run.stdout) as { id: string; lifecycle: { state: string } }[]).find((j) => j.id === id)?.lifecycle.state;
}

describe('CLI: an agent recorded in a pid namespace that ended', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  before(function () {
    if (!namespacesWork()) this.skip(); // unshare --pid needs root (or user namespaces)
  });

  it('reads orphaned from the initial namespace; stop --force and retry then work', async () => {
    const inside = await inNamespace(`${START_RUNNING}\necho $ID`, sb.repo, sb.env);
    assert.equal(inside.code, 0, inside.stderr);
    const id = inside.stdout.trim().split('\n').pop()!;
    // The namespace ended with its pid 1: the worker and the agent were killed by the kernel.
    const listed = await runCli(['list', '--json'], { cwd: sb.repo, env: sb.env });
    assert.equal(stateOf(listed, id), 'orphaned', 'gone, not running for good');
    const stopped = await runCli(['stop', id, '--force'], { cwd: sb.repo, env: sb.env });
    assert.equal(stopped.code, 0, stopped.stderr);
    const retried = await runCli(['retry', id], { cwd: sb.repo, env: sb.env });
    assert.equal(retried.code, 0, retried.stderr);
    await sb.waitForState(id, ['running']);
    assert.equal((await runCli(['stop', id], { cwd: sb.repo, env: sb.env })).code, 0);
  });

  it('reads orphaned from a namespace beside it (its worker\'s socket refuses), and running while it lives', async () => {
    // Started in one namespace that stays up until told; read from another one, which cannot see it.
    const holder = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'bash', '-c', `${START_RUNNING}\necho $ID; read line`], {
      cwd: sb.repo,
      env: { ...sb.env, CLI: `${process.execPath} ${CLI_SCRIPT}` },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const id = await new Promise<string>((resolve) => holder.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    const before = await inNamespace('$CLI list --json', sb.repo, sb.env);
    assert.equal(stateOf(before, id), 'running', 'a live worker beside it is never orphaned');
    holder.kill('SIGKILL'); // --kill-child: its namespace ends
    await new Promise((r) => holder.once('close', r));
    const after = await inNamespace('$CLI list --json', sb.repo, sb.env);
    assert.equal(stateOf(after, id), 'orphaned', after.stderr);
    assert.match((await sb.store.read(id)).lifecycle.detail ?? '', /nothing listens on its control socket/);
  });

  it('an older Paddock\'s record (no namespace named) is judged by its pid in the namespace that wrote it', async () => {
    // As an older build wrote them inside the container: the boot id alone. One worker is then
    // suspended and force-stopped there, another killed.
    const run = await inNamespace(
      `state() { $CLI show $1 --json | node -pe 'JSON.parse(require("fs").readFileSync(0)).lifecycle.state'; }
untag() { node -e 'const fs=require("fs");const f=process.argv[1];const j=JSON.parse(fs.readFileSync(f));j.execution.bootId=j.execution.bootId.replace(/ pid:\\[\\d+\\]$/,"");fs.writeFileSync(f,JSON.stringify(j))' $PADDOCK_HOME/jobs/$1/job.json; }
worker() { node -pe "require('$PADDOCK_HOME/jobs/$1/job.json').execution.pid"; }
${START_RUNNING}
untag $ID; echo "untagged: $(state $ID)"
kill -STOP $(worker $ID)
$CLI stop $ID --force >/dev/null; echo "forced: $? $(state $ID)"
${START_RUNNING}
untag $ID; kill -9 $(worker $ID); sleep 0.3
echo "killed: $(state $ID)"`,
      sb.repo,
      sb.env,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), ['untagged: running', 'forced: 0 cancelled', 'killed: orphaned'], run.stderr);
  });
});
