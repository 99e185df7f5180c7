import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Coordinator } from '../../../../src/core/coordinator';
import { DEFAULT_SETTINGS } from '../../../../src/core/coordinator/settings';
import { JobStore } from '../../../../src/core/store';

describe('store/policy: one store-wide policy every process reads', () => {
  let home: string;
  const logged: string[] = [];
  const open = () => new JobStore({ home, log: (m) => logged.push(m) });
  const coordinator = (settings?: () => object) =>
    new Coordinator({ store: open(), settings, workerScript: '/nonexistent/worker.js', tickMs: 0, watch: false });
  beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), 'pd-policy-'));
    logged.length = 0;
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('is written durably and read back by another store on the same home; invalid values are refused in one sentence', () => {
    open().policy.write({ maxConcurrent: 2, archiveLimitMB: 5 });
    open().policy.write({ stopGraceSeconds: 3 });
    assert.deepEqual(open().policy.read(), { maxConcurrent: 2, archiveLimitMB: 5, stopGraceSeconds: 3 });
    assert.throws(() => open().policy.write({ maxConcurrent: 0 }), /^PaddockError: The store policy is invalid: maxConcurrent: [^\n]*\.$/);
    assert.equal(open().policy.read().maxConcurrent, 2);
  });

  it('a corrupt or invalid policy file falls back to the defaults and says why, once', () => {
    writeFileSync(path.join(home, 'policy.json'), '{"maxConcurrent": 2,');
    const c = coordinator();
    assert.equal(c.settings.maxConcurrent, DEFAULT_SETTINGS.maxConcurrent);
    assert.equal(c.settings.maxConcurrent, DEFAULT_SETTINGS.maxConcurrent);
    assert.equal(logged.filter((m) => /policy.*is ignored \(it is not valid JSON\); the defaults apply/.test(m)).length, 1, logged.join('\n'));
    writeFileSync(path.join(home, 'policy.json'), '{"maxConcurrent": "lots"}');
    assert.equal(coordinator().settings.maxConcurrent, DEFAULT_SETTINGS.maxConcurrent);
    assert.ok(logged.some((m) => /is ignored \(.*maxConcurrent/.test(m)), logged.join('\n'));
    c.dispose();
  });

  it('a window\'s settings write it, and a CLI (no settings of its own) sees the same maxConcurrent', async () => {
    let maxConcurrent = 2;
    const window = coordinator(() => ({ maxConcurrent, stopGraceSeconds: 4 }));
    const cli = coordinator();
    assert.equal(window.settings.maxConcurrent, 2);
    assert.equal(cli.settings.maxConcurrent, 2);
    assert.equal(cli.settings.stopGraceSeconds, 4);
    maxConcurrent = 7; // the person changes the setting
    assert.equal(window.settings.maxConcurrent, 7);
    assert.equal(cli.settings.maxConcurrent, 7);
    cli.writePolicy({ maxConcurrent: 3 });
    const reader = coordinator();
    assert.equal(reader.settings.maxConcurrent, 3);
    // More capacity makes a CLI coordinator look at the queue (it takes the lease if free): waited for
    // before the home is removed, or its lock files land in a folder being deleted (ENOTEMPTY).
    for (const c of [window, cli, reader]) c.dispose();
    await Promise.all([window, cli, reader].map((c) => c.whenIdle()));
  });
});
