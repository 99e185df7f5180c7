/**
 * Bug 209's sibling: under a /proc mounted hidepid=1 (systemd's ProtectProc=noaccess) another user's
 * /proc/<pid>/stat answers EPERM, and that read was thrown as a failed one: every walk of /proc threw
 * and no stop ended an agent. Run as root, a fresh mount namespace mounts such a /proc and a process
 * of user nobody stops its own marked process; skipped where the mount is not permitted.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const PROC_MODULE = path.resolve(__dirname, '../../../../src/core/proc');
const NOBODY = '65534';

const STOP_OWN_AGENT = `
const proc = require(${JSON.stringify(PROC_MODULE)});
const { spawn } = require('node:child_process');
const marker = { name: 'PADDOCK_HIDEPID_TEST', value: 'x' };
const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true, env: { ...process.env, [marker.name]: marker.value } });
const tell = async (fn) => { try { return await fn(); } catch (e) { return 'threw: ' + e.message; } };
setTimeout(async () => {
  const listed = await tell(() => proc.listProcesses().some((p) => p.pid === child.pid));
  const found = await tell(async () => (await proc.treeMembers(undefined, marker)).map((p) => p.pid));
  const stop = await tell(async () => (await proc.terminateProcessTree({ sid: child.pid, marker, graceMs: 1000 })).survivors.length);
  let running = true;
  try { process.kill(child.pid, 0); child.kill('SIGKILL'); } catch { running = false; }
  console.log(JSON.stringify({ child: child.pid, listed, found, stop, running }));
}, 300);
`;

/** Mounts /proc hidepid=1 in a namespace of its own and runs `script` there as nobody; undefined when not permitted. */
function runAsNobodyUnderHidepid(script: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const inner = `mount -t proc -o hidepid=1 proc /proc || exit 77; exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups "$0" -e "$1"`;
  const run = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', inner, process.execPath, script], {
    env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'proc' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.error || run.status === 77 || /unshare: |setpriv: /.test(run.stderr)) return undefined;
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe('a /proc mounted hidepid=1: other users\' processes are unreadable (bug 209)', function () {
  this.timeout(90_000);

  it('the walks skip them, and a stop ends the agent', function () {
    const out = runAsNobodyUnderHidepid(STOP_OWN_AGENT);
    if (out === undefined) this.skip(); // needs root and a mount namespace
    const judged = JSON.parse(out) as { child: number; listed: unknown; found: unknown; stop: unknown; running: boolean };
    assert.equal(judged.listed, true, JSON.stringify(judged));
    assert.deepEqual(judged.found, [judged.child], JSON.stringify(judged));
    assert.equal(judged.stop, 0, JSON.stringify(judged));
    assert.equal(judged.running, false, JSON.stringify(judged));
  });
});
