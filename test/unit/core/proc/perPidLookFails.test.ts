/**
 * Bug 196: the portable backend's last per-pid `ps` runs read a failed run as nothing. The boot
 * identity (`ps -o lstart= -p 1`) was cached as 'unknown' for the process's life, so every identity
 * another process recorded was judged of another boot (a live lock owner, a running worker: gone);
 * a command line came back '' (gone), and a stop of an unreadable agent did not know its worker.
 * A `ps` of the test's own ahead of the real one in PATH fails as a loaded machine's would.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bootId, commandLineOf, readProcStat, shownCommandOf } from '../../../../src/core/proc';
import { PortablePs } from './portablePs';

/** The compiled proc module, for a fresh process whose boot identity is not read yet. */
const PROC_MODULE = path.resolve(__dirname, '../../../../src/core/proc');

/** Moves this process's clock past the 30 s a failed boot-identity look stands (portable.ts). */
const PAST_FAILURE_WINDOW = 'const realNow = Date.now; Date.now = () => realNow() + 31_000;';

/** In a fresh process: judges `identity` twice, removing `flag` (the shim's failure switch) and letting the failure's 30 s pass between. */
const JUDGE_TWICE = `
const proc = require(${JSON.stringify(PROC_MODULE)});
const fs = require('node:fs');
const [identity, flag] = [JSON.parse(process.argv[1]), process.argv[2]];
const judge = () => { try { return proc.livenessOf(identity); } catch (e) { return 'threw: ' + e.message; } };
const first = judge();
fs.rmSync(flag, { force: true });
${PAST_FAILURE_WINDOW}
console.log(JSON.stringify({ first, second: judge() }));
`;

/** In a fresh process: three boot-identity looks while `ps -p 1` fails, then one after 30 s; the shim's runs (lines of `count`) after each. */
const BOOT_LOOKS = `
const proc = require(${JSON.stringify(PROC_MODULE)});
const fs = require('node:fs');
const [count, flag] = [process.argv[1], process.argv[2]];
const runs = () => (fs.existsSync(count) ? fs.readFileSync(count, 'utf8').split('\\n').filter(Boolean).length : 0);
const look = () => { try { return proc.bootId(); } catch (e) { return 'threw: ' + e.message; } };
const seen = [];
for (let i = 0; i < 3; i++) seen.push({ result: look(), runs: runs() });
fs.rmSync(flag, { force: true });
${PAST_FAILURE_WINDOW}
seen.push({ result: look(), runs: runs() });
console.log(JSON.stringify(seen));
`;

describe('per-pid ps looks that fail, portable backend (bug 196)', function () {
  this.timeout(30_000);
  let shims: string;
  let ps: PortablePs;
  let child: ChildProcess;

  beforeEach(() => {
    shims = mkdtempSync(path.join(tmpdir(), 'paddock-ps-'));
    ps = new PortablePs(shims);
    ps.useBackend();
    child = spawn('sleep', ['60'], { stdio: 'ignore' });
  });

  afterEach(() => {
    ps.restore();
    child.kill('SIGKILL');
    rmSync(shims, { recursive: true, force: true });
  });

  /** A live process's identity as this (healthy) process records it, judged by a fresh one whose `ps -p 1` fails while `flag` exists. */
  function judgedElsewhere(shimBody: string): { first: string; second: string } {
    const stat = readProcStat(child.pid!)!;
    const identity = { pid: child.pid!, startTime: stat.startTime, bootId: bootId() };
    const flag = path.join(shims, 'failing');
    writeFileSync(flag, '');
    ps.shim(shimBody.replaceAll('FLAG', flag));
    const out = execFileSync(process.execPath, ['-e', JUDGE_TWICE, JSON.stringify(identity), flag], { env: process.env, encoding: 'utf8' });
    return JSON.parse(out) as { first: string; second: string };
  }

  it("a boot-identity look killed on its first runs: another process's live worker is still alive", function () {
    if (!ps.real) return this.skip();
    const seen = judgedElsewhere(`case " $* " in *" -p 1 "*) for n in 1 2; do if mkdir '${shims}/killed-'$n 2>/dev/null; then kill -9 $$; fi; done;; esac`);
    assert.equal(seen.first, 'alive', 'a live process judged of another boot');
  });

  it('a boot-identity look that keeps failing is said, and not kept: the next look answers', function () {
    if (!ps.real) return this.skip();
    const seen = judgedElsewhere(`case " $* " in *" -p 1 "*) if [ -e 'FLAG' ]; then kill -9 $$; fi;; esac`);
    assert.match(seen.first, /^threw: Could not list the processes \(ps -o lstart= -p 1\): ps was killed by SIGKILL/);
    assert.equal(seen.second, 'alive', "the failed look's 'unknown' was kept");
  });

  it('a failed boot-identity look is thrown again at once for 30 s, without running ps; then looked at again', function () {
    if (!ps.real) return this.skip();
    const [count, flag] = [path.join(shims, 'count'), path.join(shims, 'failing')];
    writeFileSync(flag, '');
    ps.shim(`case " $* " in *" -p 1 "*) echo run >> '${count}'; if [ -e '${flag}' ]; then kill -9 $$; fi;; esac`);
    const out = execFileSync(process.execPath, ['-e', BOOT_LOOKS, count, flag], { env: process.env, encoding: 'utf8' });
    const seen = JSON.parse(out) as { result: string; runs: number }[];
    for (const s of seen.slice(0, 3)) assert.match(s.result, /^threw: Could not list the processes \(ps -o lstart= -p 1\)/);
    assert.ok(seen[0].runs >= 1);
    assert.deepEqual([seen[1].runs, seen[2].runs], [seen[0].runs, seen[0].runs], 'a failed look was run again within its 30 s');
    assert.equal(seen[3].runs, seen[0].runs + 1, 'the look after 30 s did not run ps once');
    assert.doesNotMatch(seen[3].result, /^threw/);
  });

  it("a command line whose ps is killed on its first runs is still read; one that keeps failing is said, shown by its name", function () {
    if (!ps.real) return this.skip();
    ps.shim(`case " $* " in *"args= -p "*) for n in 1 2; do if mkdir '${shims}/killed-'$n 2>/dev/null; then kill -9 $$; fi; done;; esac`);
    assert.equal(commandLineOf(child.pid!), 'sleep 60', 'a live process read as gone');
    ps.shim('case " $* " in *"args= -p "*) kill -9 $$;; esac');
    assert.throws(() => commandLineOf(child.pid!), /Could not list the processes \(ps -ww -o stat=,args= -p \d+\)/);
    assert.equal(shownCommandOf({ pid: child.pid!, comm: 'sleep' }), 'sleep');
  });

  it('a gone process still has no command line, at once', async function () {
    if (!ps.real) return this.skip();
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(existsSync(ps.real), true);
    assert.equal(commandLineOf(child.pid!), '');
  });
});
