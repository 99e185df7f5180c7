/**
 * The portable backend's parsing, on output captured from procps (Linux) and
 * in macOS's formats (session pointers in hex, executable paths as comm,
 * `ps -E` environments, lsof's -F output), so the macOS path is tested here.
 */
import * as assert from 'node:assert/strict';
import { markersByPid, parseCpuTime, parseLsofNames, parseLstart, parsePsStat, parsePsUsage, pidsWithMarker } from '../../../../src/core/proc/psParse';

describe('proc/psParse: ps and lsof output', () => {
  it('reads procps lines, with a comm holding spaces and parentheses', () => {
    const out = [
      '    1     0     0     0    -1 S<Ll Thu Dec  3 05:35:19 2026 process_api',
      '  452     1   451   451    -1 S    Thu Dec  3 06:40:02 2026 sleep',
      ' 9000  452  9000  9000  9000 Z+   Wed Jan 14 23:59:59 2026 odd (name) here',
    ].join('\n');
    const stats = parsePsStat(out);
    assert.equal(stats.length, 3);
    assert.deepEqual({ ...stats[1], startTime: 0 }, { pid: 452, ppid: 1, pgid: 451, sid: 451, tpgid: -1, state: 'S', startTime: 0, comm: 'sleep' });
    assert.equal(stats[2].comm, 'odd (name) here');
    assert.equal(stats[2].state, 'Z');
    assert.equal(stats[1].startTime - stats[0].startTime, 64 * 60 + 43);
  });

  it('reads macOS lines: a session pointer in hex, the executable path as comm', () => {
    const out = [
      '  501     1   501 ffffff8012345678     0 Ss   Mon Mar  2 09:01:02 2026 /usr/local/bin/node',
      '  777   501   777 ffffff8012345678   777 S+   Mon Mar  2 09:01:05 2026 /Applications/Visual Studio Code.app/Contents/MacOS/Electron',
    ].join('\n');
    const [a, b] = parsePsStat(out);
    assert.equal(a.comm, 'node');
    assert.equal(b.comm, 'Electron');
    assert.equal(a.sid, b.sid, 'one session, compared by its pointer');
    assert.ok(a.sid > 0);
    assert.equal(b.startTime - a.startTime, 3);
  });

  it('skips lines it cannot read instead of inventing processes', () => {
    assert.deepEqual(parsePsStat('garbage\n  12 x y\n\n'), []);
    assert.ok(Number.isNaN(parseLstart('yesterday')));
  });

  it('finds the environment marker as a whole word only', () => {
    const out = [
      '  100 /bin/sh -c agent PATH=/usr/bin PADDOCK_JOB_ID=abc123 HOME=/h',
      '  101 node x.js PADDOCK_JOB_ID=abc1234',
      '  102 grep PADDOCK_JOB_ID=abc123x',
      '  103 codex app-server TERM=xterm PADDOCK_JOB_ID=abc123',
    ].join('\n');
    assert.deepEqual(pidsWithMarker(out, 'PADDOCK_JOB_ID', 'abc123'), [100, 103]);
  });

  it('reads lsof -F pn output, dropping the "(deleted)" Linux adds', () => {
    const out = ['p452', 'fcwd', 'n/tmp/gg/gone (deleted)', 'p900', 'n/Users/me/repo.worktrees/abc', 'n/Users/me/repo.worktrees/abc/x.log'].join('\n');
    assert.deepEqual(parseLsofNames(out), [
      { pid: 452, name: '/tmp/gg/gone' },
      { pid: 900, name: '/Users/me/repo.worktrees/abc' },
      { pid: 900, name: '/Users/me/repo.worktrees/abc/x.log' },
    ]);
  });

  it('reads usage lines: resident KiB, %cpu and CPU time in procps (whole seconds) and macOS (hundredths) forms', () => {
    assert.equal(parseCpuTime('00:01:05'), 65);
    assert.equal(parseCpuTime('2-03:00:00'), 2 * 86_400 + 3 * 3600);
    assert.equal(parseCpuTime('0:03.45'), 3.45);
    assert.equal(parseCpuTime('12:34.56'), 754.56);
    assert.ok(Number.isNaN(parseCpuTime('n/a')));
    const linux = parsePsUsage(['  452   450   451 204800 97.5 00:00:12 Thu Dec  3 06:40:02 2026', 'garbage'].join('\n'));
    assert.deepEqual({ ...linux[0], startTime: 0 }, { pid: 452, ppid: 450, sid: 451, rssKiB: 204800, pcpu: 97.5, cpuSeconds: 12, fractional: false, startTime: 0 });
    const mac = parsePsUsage('  900     1 0x5c2e1f0   51200  12,5   0:03.45 Thu Dec  3 06:40:02 2026');
    assert.equal(mac[0].sid > 0, true);
    assert.equal(mac[0].pcpu, 12.5);
    assert.equal(mac[0].cpuSeconds, 3.45);
    assert.equal(mac[0].fractional, true);
  });

  it('reads each process\'s marker value from ps with environments', () => {
    const out = ['  10 node agent.js HOME=/h PADDOCK_JOB_ID=abc123 PATH=/bin', '  11 bash', '  12 sleep 5 PADDOCK_JOB_ID=def456'].join('\n');
    assert.deepEqual([...markersByPid(out, 'PADDOCK_JOB_ID')], [[10, 'abc123'], [12, 'def456']]);
  });
});
