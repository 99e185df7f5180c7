import * as assert from 'node:assert/strict';
import { DrainMarker } from '../../../../src/core/worker/drain';
import { loadNodePty } from '../../../../src/core/worker/ptyHost';
import { nodePtyPath, sleep, waitUntil } from './fixtures';

describe('DrainMarker', () => {
  it('removes the marker from raw output however it is cut, and passes every other byte through', () => {
    const before = Buffer.from('out ✓ \x1b[0m\x1b]7777;not-it\x07 ');
    const after = Buffer.from([0xe2, 0x9c, 0x93, 0xff]); // a character and an invalid byte, kept as they are
    for (let cut = 0; cut <= 60; cut++) {
      const d = new DrainMarker();
      const all = Buffer.concat([before, Buffer.from(d.marker, 'latin1'), after]);
      const first = d.filter(all.subarray(0, cut));
      const second = d.filter(all.subarray(cut));
      assert.deepEqual(Buffer.concat([first.bytes, second.bytes, d.end()]), Buffer.concat([before, after]), `cut at ${cut}`);
      assert.equal(first.found || second.found, true);
      assert.equal(d.drained, true);
    }
  });

  it('gives back a held partial marker at the end of the stream', () => {
    const d = new DrainMarker();
    const partial = Buffer.from(d.marker.slice(0, 5), 'latin1');
    assert.deepEqual(d.filter(Buffer.concat([Buffer.from('tail'), partial])).bytes, Buffer.from('tail'));
    assert.deepEqual(d.end(), partial);
    assert.equal(d.drained, false);
  });
});

describe('the drain wrapper, in a real terminal', function () {
  this.timeout(20_000);

  for (const [key, name] of [['\x03', 'Ctrl-C'], ['\x1c', 'Ctrl-\\']] as const) {
    it(`keeps the terminal open after the agent exited through a ${name} typed then, until the worker's SIGUSR1 (bug 174)`, async () => {
      const nodePty = loadNodePty(nodePtyPath());
      const d = new DrainMarker();
      const { file, args } = d.wrap(['sh', '-c', 'printf tail; exit 3']);
      const pty = nodePty.spawn(file, args, { cols: 80, rows: 24, encoding: null });
      let markerAt = 0;
      let exitAt = 0;
      const exited = new Promise<number>((resolve) =>
        pty.onExit((e) => {
          exitAt = Date.now();
          resolve(e.exitCode);
        }),
      );
      const typed: NodeJS.Timeout[] = [];
      pty.onData((data) => {
        // A worker that has not read up to the marker yet (busy): the person's key comes first. Typed 100, 200 and
        // 300 ms after the marker, when the wrapper waits: one typed at once may come before its `wait` starts.
        if (d.filter(Buffer.from(data as unknown as Buffer)).found) {
          markerAt = Date.now();
          for (const ms of [100, 200, 300]) typed.push(setTimeout(() => exitAt || pty.write(key), ms));
        }
      });
      try {
        await waitUntil('the marker', () => markerAt > 0);
        await sleep(1000);
        assert.equal(exitAt, 0, `the wrapper exited ${exitAt - markerAt} ms after the marker (the ${name} typed 100 ms after it), before the worker said it had read everything`);
        process.kill(pty.pid, 'SIGUSR1');
        assert.equal(await exited, 3, "the agent's exit status");
      } finally {
        for (const t of typed) clearTimeout(t);
        if (!exitAt) pty.kill('SIGKILL');
      }
    });
  }
});
