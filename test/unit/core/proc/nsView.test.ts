/**
 * Bug 109, as reviewed: a process recorded in another pid namespace is found there from an ancestor
 * (the initial namespace sees every one), or proven gone once its namespace ended — never "may be
 * running" for good; an untagged (older) record read inside a namespace is judged by its pid there
 * when that pid still names it; and on the portable backend the boot id an older Paddock wrote (pid
 * 1's start) is still this boot. Needs root (or user namespaces) for `unshare`: skips otherwise.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';

const identityModule = path.resolve(__dirname, '../../../../src/core/proc/identity.js');
const checkRunnerModule = path.resolve(__dirname, '../../../../src/core/store/checkRunner.js');
const ownershipModule = path.resolve(__dirname, '../../../../src/core/store/ownership.js');

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Runs `body` in node with the identity module as `identity` (in a new pid namespace with `ns`); returns what it prints as JSON. */
function judged(body: string, opts: { ns?: boolean; backend?: 'proc' | 'portable' } = {}): Record<string, unknown> {
  const script = `const identity = require(${JSON.stringify(identityModule)});\n${body}`;
  const argv = opts.ns ? ['unshare', '--pid', '--fork', '--mount-proc', process.execPath, '-e', script] : [process.execPath, '-e', script];
  const out = execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { ...process.env, PADDOCK_PROCESS_BACKEND: opts.backend ?? 'proc' }, timeout: 20_000 });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('proc/nsView: processes recorded in another pid namespace', function () {
  this.timeout(60_000);

  it('from the initial namespace, one running in a namespace is found (elsewhere) and one whose namespace ended is gone', async function () {
    if (!namespacesWork()) this.skip(); // unshare --pid needs root (or user namespaces)
    // A process in a namespace of its own prints its identity, then runs until the namespace's pid 1
    // exits (told on its stdin): the kernel then kills it, and nothing of the namespace is left.
    const body = `const identity = require(${JSON.stringify(identityModule)}); console.log(JSON.stringify(identity.ownIdentity())); setInterval(() => {}, 1000);`;
    const inside = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'bash', '-c', '"$0" -e "$1" & read line', process.execPath, body], { stdio: ['pipe', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => inside.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    const recorded = JSON.parse(line) as { pid: number; bootId: string };
    assert.match(recorded.bootId, / pid:\[\d+\]$/, 'it names its namespace');
    const judge = `const r = ${JSON.stringify(recorded)};
      Promise.resolve(identity.processTableSource([r])).then((stats) => console.log(JSON.stringify({ table: identity.livenessOf(r, stats), direct: identity.livenessOf(r), outOfSight: identity.isOutOfSight?.(r, stats), gone: identity.livenessOf({ ...r, pid: r.pid + 1000 }, stats) })));`;
    try {
      assert.deepEqual(judged(judge), { table: 'elsewhere', direct: 'elsewhere', outOfSight: false, gone: 'dead' }, 'found running there; a pid not there is gone');
    } finally {
      inside.stdin.end(); // its namespace ends
      await new Promise((r) => inside.once('close', r));
    }
    // No process of its namespace is left: gone, never "may be running" for good.
    assert.deepEqual(judged(judge), { table: 'dead', direct: 'dead', outOfSight: false, gone: 'dead' }, 'its namespace ended');
  });

  it('inside a namespace, an untagged identity (an older Paddock\'s) still named by its pid there is that process', function () {
    if (!namespacesWork()) this.skip();
    const out = judged(
      `const me = identity.ownIdentity();
       const untagged = { ...me, bootId: me.bootId.replace(/ pid:\\[\\d+\\]$/, '') };
       console.log(JSON.stringify({ tagged: me.bootId !== untagged.bootId, me: identity.livenessOf(untagged), here: identity.countsHere?.(untagged), other: identity.livenessOf({ ...untagged, pid: 4000000 }) }));`,
      { ns: true },
    );
    assert.deepEqual(out, { tagged: true, me: 'alive', here: true, other: 'elsewhere' });
  });

  it('a check runner out of sight (a namespace beside this one) is taken as running only for as long as a check may run', function () {
    if (!namespacesWork()) this.skip();
    const out = judged(
      `const { runnerMayRun } = require(${JSON.stringify(checkRunnerModule)});
       const me = identity.ownIdentity();
       const beside = { pid: 7, startTime: 1, bootId: me.bootId.replace(/ pid:\\[\\d+\\]$/, '') + ' pid:[1]' };
       const hoursAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
       console.log(JSON.stringify({ outOfSight: identity.isOutOfSight?.(beside), now: runnerMayRun?.(beside, new Date().toISOString()), hoursAgo: runnerMayRun?.(beside, hoursAgo) }));`,
      { ns: true },
    );
    assert.deepEqual(out, { outOfSight: true, now: true, hoursAgo: false });
  });

  it('a worker launched out of sight that never claimed is taken as starting only for a bounded time', function () {
    if (!namespacesWork()) this.skip();
    const out = judged(
      `const { judgeOwnershipNow } = require(${JSON.stringify(ownershipModule)});
       const me = identity.ownIdentity();
       const launch = (at) => ({ lifecycle: { state: 'starting', generation: 1 }, execution: null, launch: { workerPid: 7, startTime: 1, generation: 1, launchedAt: at, bootId: me.bootId.replace(/ pid:\\[\\d+\\]$/, '') + ' pid:[1]' } });
       Promise.all([judgeOwnershipNow(launch(new Date().toISOString())), judgeOwnershipNow(launch(new Date(Date.now() - 3600_000).toISOString()))])
         .then(([now, hourAgo]) => console.log(JSON.stringify({ now: now?.to ?? 'starting', hourAgo: hourAgo?.to ?? 'starting' })));`,
      { ns: true },
    );
    assert.deepEqual(out, { now: 'starting', hourAgo: 'failed' });
  });

  it('on the portable backend, the boot id an older Paddock wrote (pid 1\'s start) is this boot', function () {
    if (process.platform !== 'linux') this.skip();
    const out = judged(
      `const { execFileSync } = require('node:child_process');
       const legacy = execFileSync('ps', ['-o', 'lstart=', '-p', '1'], { encoding: 'utf8' }).trim().replace(/\\s+/g, ' ');
       const me = identity.ownIdentity();
       console.log(JSON.stringify({ me: identity.livenessOf({ ...me, bootId: legacy }), here: identity.countsHere?.({ ...me, bootId: legacy }), other: identity.livenessOf({ ...me, bootId: 'Thu Jan 1 00:00:00 1970' }) }));`,
      { backend: 'portable' },
    );
    assert.deepEqual(out, { me: 'alive', here: true, other: 'reused' });
  });
});
