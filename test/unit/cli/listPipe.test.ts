/**
 * Regression (docs/reliability.md, "found by the benchmark"): `paddock list --json` into a pipe
 * was cut short, because the CLI exited before stdout drained. The real bundle, 1,000 records,
 * far more output than a pipe buffers, and a reader that takes its time.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_SCRIPT } from '../core/coordinator/coordinatorFixture';
import { sampleJob, TestBed, useTestBed, withWindowOpen } from '../core/store/helpers';
import type { JobStore } from '../../../src/core/store';

const RECORDS = 1_000;
const PIPE_BUFFER = 64 * 1024;

describe('paddock list --json into a slow pipe', function () {
  this.timeout(60_000);
  let home = '';
  let store!: JobStore;
  useTestBed((bed: TestBed, fresh) => {
    home = bed.home;
    store = fresh;
  });

  it(`prints all ${RECORDS.toLocaleString('en')} records as one valid JSON document, however slowly it is read`, async () => {
    // One record made by the store, its job.json copied under new ids (all `list` reads).
    const first = await store.create(sampleJob({ title: 'listed through a pipe' }));
    const template = JSON.parse(readFileSync(join(store.jobDir(first.id), 'job.json'), 'utf8')) as { id: string };
    const ids = [first.id];
    for (let i = 1; i < RECORDS; i++) {
      const id = `pipe${String(i).padStart(4, '0')}`;
      const dir = store.jobDir(id);
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, 'job.json'), JSON.stringify({ ...template, id }));
      ids.push(id);
    }

    const text = await withWindowOpen(home, () => listSlowly(home));
    assert.ok(text.length > 4 * PIPE_BUFFER, `${text.length} bytes: more than a pipe holds`);
    const listed = JSON.parse(text) as { id: string; title: string }[];
    assert.equal(listed.length, RECORDS);
    assert.deepEqual(listed.map((j) => j.id).sort(), [...ids].sort());
    assert.ok(listed.every((j) => j.title === 'listed through a pipe'));
  });
});

/** `paddock list --json` read by a reader that starts late and then takes its time; its whole stdout. */
async function listSlowly(home: string): Promise<string> {
  const child = spawn(process.execPath, [CLI_SCRIPT, 'list', '--json'], { env: { PATH: process.env.PATH, HOME: home, PADDOCK_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Nobody reads until the CLI has had every chance to exit with its output still buffered.
  child.stdout.pause();
  const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 1500))]);
  assert.equal(code, 'still running', `the CLI must wait for its reader, but exited with ${code}: ${stderr}`);
  // Then a slow reader: it waits 10 ms after each chunk.
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) {
    chunks.push(chunk as Buffer);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(await exited, 0, stderr);
  assert.equal(stderr, '');
  return Buffer.concat(chunks).toString('utf8');
}
