/**
 * Bug 114, second review: a writer forked after the exit scan in an escapee's session, dropping the
 * job's marker (`env -u PADDOCK_JOB_ID`), whose session leader then exited, was no longer reached:
 * the worker looked at the sessions once at the grace's end, found only that stranger there and
 * skipped the session; the detail said *exit 0* and the writer (cwd /, writing into the worktree
 * by absolute path) outlived the agent. The grace now looks throughout, and a session proven the
 * agent's at a look moments before stays so. Real workers, real PTYs. Both process backends.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { useProcessBackend } from '../proc/processBackend';
import { lifecycleDetail } from '../../../../src/core/store/leftoverWords';

const writers = (tag: string): string => execFileSync('sh', ['-c', `ps -eo pid,args | grep "[n]otes-${tag}" || true`]).toString().trim();

for (const backend of ['proc', 'portable'] as const) {
  describe(`a writer forked in an escapee's session whose leader then exits, ${backend} backend`, function () {
    this.timeout(90_000);
    let sb!: CoordinatorSandbox;
    useProcessBackend(backend);
    useCoordinatorSandbox((fresh) => (sb = fresh));

    for (const drop of [true, false]) {
      it(`is ended with the agent's leftovers (${drop ? 'it dropped the marker' : 'marked'})`, async () => {
        const tag = `${backend}-${drop ? 'u' : 'm'}-${process.pid}`;
        const c = sb.coordinator({ stopGraceSeconds: 3 });
        const inner = `${drop ? 'env -u PADDOCK_JOB_ID ' : ''}sh -c "cd /; while :; do date >> \\$0/notes-${tag}.txt; sleep 0.2; done" "$1"`;
        const agent = `W=$PWD; setsid sh -c 'sleep 0.8; (${inner} &) ; exit 0' x "$W" >/dev/null 2>&1 & sleep 0.3; exit 0`;
        const job = await c.start({ repo: sb.repo, command: ['sh', '-c', agent] });
        await sb.waitFor(job.id, (j) => j.lifecycle.state === 'completed', 15_000);
        const settled = await sb.waitFor(job.id, (j) => !/ending/.test(lifecycleDetail(j) ?? ''), 20_000);
        await sleep(300);
        const left = writers(tag);
        if (left) execFileSync('sh', ['-c', `pkill -f "[n]otes-${tag}" || true`]);
        assert.equal(left, '', `the writer outlived the agent: ${lifecycleDetail(settled)}`);
        // The writer's own `sleep 0.2`, forked after the last look, may outlive the writer by its 0.2 s:
        // named honestly as still running (CI, portable backend under load), harmless, and gone by now
        // (said exited once a reader finds it gone: bug 148). Exited but not yet reaped when the worker
        // named it, it has no arguments left: named `sleep`, as /proc names it (the portable backend
        // said `[sleep] <defunct>`, ps's rendering: bug 227, in 3 of 4 runs on a loaded machine).
        assert.match(lifecycleDetail(settled) ?? '', /^exit 0; ended \d+ process(es)? it left running(; (still running|since exited): \d+ \(sleep( 0\.2)?\))?$/);
      });
    }
  });
}
