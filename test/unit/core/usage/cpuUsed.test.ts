/**
 * The CPU an agent used between two snapshots, from each process's own and
 * reaped children's CPU time: children born and ended within the interval
 * count (through the parent that reaped them), a child seen before and reaped
 * since is not counted twice, and one that left otherwise (an escaped child
 * reaped by init) makes no figure negative. The figures are as /proc gives
 * them (own + reaped, reaped apart) and as ps's cumulative mode does (no part apart).
 */
import * as assert from 'node:assert/strict';
import type { ProcessUsage } from '../../../../src/core/proc/processUsage';
import { cpuUsedBetween, processKey } from '../../../../src/core/usage/cpuUsed';

/** A process with `own` and `reaped` CPU seconds, as /proc reports it. */
const proc = (pid: number, ppid: number, own: number, reaped = 0): ProcessUsage => ({
  pid,
  ppid,
  startTime: pid * 10,
  sid: 100,
  marker: undefined,
  rssBytes: 0,
  cpuSeconds: own + reaped,
  reapedCpuSeconds: reaped,
});
/** The same as ps's cumulative mode gives it: no reaped part apart. */
const ps = (p: ProcessUsage): ProcessUsage => ({ ...p, reapedCpuSeconds: undefined });
const byKey = (ps: ProcessUsage[]) => new Map(ps.map((p) => [processKey(p), p]));
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

describe('usage/cpuUsed', () => {
  it('children born and reaped within the interval count, through their parent', () => {
    // A shell that used 0.1 s itself and reaped compilers using 0.8 s, none seen by either snapshot.
    const before = [proc(100, 1, 1, 5)];
    const now = [proc(100, 1, 1.1, 5.8)];
    for (const shape of [(p: ProcessUsage) => p, ps]) close(cpuUsedBetween(byKey(before.map(shape)), now.map(shape)), 0.9, 'the shell and its compilers');
  });

  it('a child seen before and reaped since is counted once; a new process counts whole', () => {
    // The child had used 2 s at the first snapshot, 3 s when reaped; a new child has used 0.5 s.
    const before = [proc(100, 1, 1), proc(101, 100, 2)];
    const now = [proc(100, 1, 1.2, 3), proc(102, 100, 0.5)];
    for (const shape of [(p: ProcessUsage) => p, ps]) close(cpuUsedBetween(byKey(before.map(shape)), now.map(shape)), 0.2 + 1 + 0.5, 'shell 0.2 + child\'s last 1 + new 0.5');
  });

  it('a grandchild reaped by a child the shell then reaped is counted once', () => {
    const before = [proc(100, 1, 1), proc(101, 100, 1), proc(102, 101, 4)];
    // 102 ended at 5 s, reaped by 101 (own 1.5 s), then 101 reaped by 100.
    const now = [proc(100, 1, 1, 1.5 + 5)];
    close(cpuUsedBetween(byKey(before), now), 0.5 + 1, 'the child\'s last 0.5 and the grandchild\'s last 1');
  });

  it('an escaped child reaped by init: no negative figure, nothing taken off the shell twice', () => {
    // The escapee had used 30 s; it ended and init reaped it. The shell used 0.3 s itself and reaped nothing.
    const before = [proc(100, 1, 1), proc(200, 100, 30)];
    const now = [proc(100, 1, 1.3)];
    close(cpuUsedBetween(byKey(before), now), 0.3, '/proc: the shell\'s own, whole');
    assert.ok(cpuUsedBetween(byKey(before.map(ps)), now.map(ps)) >= 0, 'ps: never negative');
    // Its parent ended too (a double fork): nobody left to have reaped it.
    close(cpuUsedBetween(byKey([proc(100, 1, 1), proc(150, 100, 0.1), proc(200, 150, 30)]), [proc(100, 1, 1.3, 0.1)]), 0.3, 'the shell\'s own');
  });

  it('an escaped child gone while the shell reaped others: what is taken off is bounded by what the shell reaped', () => {
    const before = [proc(100, 1, 1), proc(200, 100, 30)];
    // The escapee (30 s) was reaped by init; the shell reaped compilers using 0.8 s and used 0.2 s itself.
    const now = [proc(100, 1, 1.2, 0.8)];
    const used = cpuUsedBetween(byKey(before), now);
    assert.ok(used >= 0.2 - 1e-9 && used <= 1 + 1e-9, `between the shell's own and all that was used: ${used}`);
  });
});
