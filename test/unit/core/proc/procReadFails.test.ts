/**
 * Bug 209, the /proc side of bug 190: the procfs backend read any failed read of /proc/<pid>/stat as
 * "no such process", so a process out of file descriptors (EMFILE) judged a live lock owner or worker
 * dead. A fresh process reads the boot identity, takes every descriptor it may have (a low
 * `ulimit -n`, /dev/null opened until EMFILE), judges a live process, then gives them back.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { bootId, readProcStat } from '../../../../src/core/proc';
import { useProcessBackend } from './processBackend';

const PROC_MODULE = path.resolve(__dirname, '../../../../src/core/proc');

const JUDGE_OUT_OF_FDS = `
const proc = require(${JSON.stringify(PROC_MODULE)});
const fs = require('node:fs');
const identity = JSON.parse(process.argv[1]);
const tell = (fn) => { try { return String(fn()); } catch (e) { return 'threw: ' + e.message; } };
proc.bootId(); // read while descriptors are free: this test is about the process's own look
const fds = [];
try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
const first = { liveness: tell(() => proc.livenessOf(identity)), stat: tell(() => proc.readProcStat(identity.pid)?.pid) };
for (const fd of fds) fs.closeSync(fd);
console.log(JSON.stringify({ first, second: tell(() => proc.livenessOf(identity)) }));
`;

describe('a read of /proc that fails for want of file descriptors (bug 209)', function () {
  this.timeout(30_000);
  useProcessBackend('proc');
  let child: ChildProcess;
  beforeEach(() => {
    child = spawn('sleep', ['60'], { stdio: 'ignore' });
  });
  afterEach(() => child.kill('SIGKILL'));

  it('a live process is never read as gone: the failed read is said, and the next read answers', function () {
    const stat = readProcStat(child.pid!)!;
    const identity = { pid: child.pid!, startTime: stat.startTime, bootId: bootId() };
    const out = execFileSync('sh', ['-c', 'ulimit -n 64 && exec "$0" -e "$1" "$2"', process.execPath, JUDGE_OUT_OF_FDS, JSON.stringify(identity)], {
      env: { ...process.env, PADDOCK_PROCESS_BACKEND: 'proc' },
      encoding: 'utf8',
    });
    const judged = JSON.parse(out) as { first: { liveness: string; stat: string }; second: string };
    assert.notEqual(judged.first.liveness, 'dead', `a live process was judged dead from a failed read: ${JSON.stringify(judged)}`);
    assert.match(judged.first.liveness, /^threw: Could not read \/proc\/\d+\/stat: .*EMFILE/);
    assert.match(judged.first.stat, /^threw: Could not read/);
    assert.equal(judged.second, 'alive');
  });
});
