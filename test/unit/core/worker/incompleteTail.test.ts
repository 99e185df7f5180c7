import * as assert from 'node:assert/strict';
import { WorkerClient } from '../../../../src/core/protocol/client';
import { cutIncompleteTail, incompleteTailLength, MAX_HELD_SEQUENCE_BYTES } from '../../../../src/core/worker/incompleteTail';
import { useWorkerSandbox, waitUntil } from './fixtures';

const held = (text: string) => incompleteTailLength(Buffer.from(text, 'utf8'));

describe('incompleteTail', () => {
  it('holds an escape sequence the next read completes, and nothing that is finished', () => {
    assert.equal(held('ab\x1b'), 1);
    assert.equal(held('ab\x1b['), 2);
    assert.equal(held('ab\x1b[3'), 3);
    assert.equal(held('ab\x1b[?104'), 6);
    assert.equal(held('ab\x1b]0;tit'), 7);
    assert.equal(held('ab\x1bP+q'), 4);
    assert.equal(held('ab\x1b('), 2);
    assert.equal(held('ab\x1b]8;;http://x/é'), Buffer.byteLength('\x1b]8;;http://x/é'));
    for (const done of ['ab\x1b[31m', 'ab\x1b[31mRED', 'ab\x1b]0;t\x07', 'ab\x1b]0;t\x1b\\', 'ab\x1b(B', 'ab\x1b7', 'ab\x1b=', 'ab\x1b[3\x18', 'plain']) {
      assert.equal(held(done), 0, JSON.stringify(done));
    }
  });

  it('still holds a UTF-8 character cut by the read', () => {
    assert.equal(incompleteTailLength(Buffer.from('a😀', 'utf8').subarray(0, 3)), 2);
    assert.equal(incompleteTailLength(Buffer.from('\x1b[31mé', 'utf8').subarray(0, 6)), 1);
  });

  it('cuts across reads, and lets a sequence longer than the bound through', () => {
    const chunks = [Buffer.from('text \x1b'), Buffer.from('[3'), Buffer.from('8;5')];
    assert.equal(cutIncompleteTail(chunks)?.toString(), '\x1b[38;5');
    assert.deepEqual(Buffer.concat(chunks).toString(), 'text ');
    const image = [Buffer.from(`\x1b_G${'A'.repeat(MAX_HELD_SEQUENCE_BYTES)}`)];
    assert.equal(cutIncompleteTail(image), undefined);
  });
});

describe('a viewer attaching while the agent is inside an escape sequence', function () {
  this.timeout(60_000);
  const use = useWorkerSandbox();
  const { clients } = use;

  it('gets the whole sequence after the screen, never its tail as text', async () => {
    // Each printf is its own PTY read: the agent pauses in the middle of a colour and of a title
    // (no echo: the typed keys would end the sequences).
    const job = await use.sb.start(['sh', '-c', `stty -echo; printf 'start\\r\\n\\033[3'; read a; printf '1mRED\\033[0m\\r\\nmid\\033]0;my-ti'; read b; printf 'tle\\007after\\r\\n'; sleep 600`]);
    const typist = await WorkerClient.connect(use.sb.store, job.id);
    clients.push(typist);
    await typist.hello();

    /** Everything a viewer that attaches once `visible` is on the screen gets: the screen, then the output. */
    const viewFrom = async (visible: string) => {
      for (;;) {
        const c = await WorkerClient.connect(use.sb.store, job.id);
        clients.push(c);
        let stream = '';
        c.onDidOutput((d) => (stream += d));
        stream += (await c.attach({ cols: 80, rows: 24, readOnly: true })).screen;
        if (stream.includes(visible)) return () => stream;
        c.dispose();
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const first = await viewFrom('start');
    await typist.send('x');
    await waitUntil('the colour', () => first().includes('RED'));
    assert.ok(first().includes('\x1b[31mRED'), JSON.stringify(first()));

    const second = await viewFrom('mid');
    await typist.send('y');
    await waitUntil('after', () => second().includes('after'));
    assert.ok(second().includes('\x1b]0;my-title\x07after'), JSON.stringify(second()));
  });
});
