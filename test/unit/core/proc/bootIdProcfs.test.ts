/**
 * Bug 207, the /proc side of bug 196: the procfs backend read the boot identity once and cached
 * 'unknown' for the process's life when the read failed, so every identity another process recorded
 * (a lock's live owner, a running worker) was judged of another boot, gone. A read fails for a
 * moment when a process is out of file descriptors: a fresh process runs out of them (a low
 * `ulimit -n`, /dev/null opened until EMFILE), judges a live process this one recorded, then closes
 * them and judges it again.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { bootId, readProcStat } from '../../../../src/core/proc';
import { useProcessBackend } from './processBackend';

const PROC_MODULE = path.resolve(__dirname, '../../../../src/core/proc');

/** In a fresh process: judges `identity` with every descriptor taken, then again once they are given back. */
const JUDGE_OUT_OF_FDS = `
const proc = require(${JSON.stringify(PROC_MODULE)});
const fs = require('node:fs');
const identity = JSON.parse(process.argv[1]);
const judge = () => { try { return proc.livenessOf(identity); } catch (e) { return 'threw: ' + e.message; } };
proc.readProcStat(process.pid); // the backend loaded (its module read) before every descriptor is taken
const fds = [];
try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
const first = judge();
for (const fd of fds) fs.closeSync(fd);
console.log(JSON.stringify({ first, second: judge() }));
`;

describe('the boot identity on /proc when its read fails (bug 207)', function () {
  this.timeout(30_000);
  useProcessBackend('proc');
  let child: ChildProcess;
  beforeEach(() => {
    child = spawn('sleep', ['60'], { stdio: 'ignore' });
  });
  afterEach(() => child.kill('SIGKILL'));

  it("a read that failed (out of file descriptors) is said, not kept: another process's live worker is then alive", function () {
    if (!existsSync('/proc/sys/kernel/random/boot_id')) return this.skip();
    const stat = readProcStat(child.pid!)!;
    const identity = { pid: child.pid!, startTime: stat.startTime, bootId: bootId() };
    const out = execFileSync('sh', ['-c', 'ulimit -n 64 && exec "$0" -e "$1" "$2"', process.execPath, JUDGE_OUT_OF_FDS, JSON.stringify(identity)], {
      env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'proc' },
      encoding: 'utf8',
    });
    const judged = JSON.parse(out) as { first: string; second: string };
    assert.notEqual(judged.first, 'reused', 'a failed read judged a live process of this boot gone');
    assert.match(judged.first, /^threw: Could not read the boot identity \(\/proc\/sys\/kernel\/random\/boot_id\): .*EMFILE/);
    assert.equal(judged.second, 'alive');
  });
});
