/**
 * A record nested thousands deep in a key Paddock does not know (bug 150): it parsed, but each write of it
 * failed on a stack overflow ("Maximum call stack size exceeded"), so cleanup failed, and so did every
 * reader's repair of it. It reads unreadable now, with one reason, like any corrupt record; the rest works.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from '../unit/core/worker/fixtures';
import { cliAsync } from './faultKit';

describe('faults: a record nested thousands deep (bug 150)', function () {
  this.timeout(60_000);
  let sb: Sandbox | undefined;
  afterEach(() => {
    sb?.dispose();
    sb = undefined;
  });

  it('reads unreadable with one reason; list, show and cleanup say so and the other agents work', async () => {
    const s = new Sandbox();
    sb = s;
    const deep = await s.start(['sh', '-c', 'echo hi'], { waitFor: ['completed'] });
    const good = await s.start(['sh', '-c', 'echo ok'], { waitFor: ['completed'] });
    const file = join(s.store.jobDir(deep.id), 'job.json');
    const rec = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const text = JSON.stringify({ ...rec, zz: 0 }).replace('"zz":0', `"zz":${'['.repeat(5000)}${']'.repeat(5000)}`);
    writeFileSync(file, text);
    const env = { ...s.env, HOME: s.cwd };
    const reason = `the record nests 5001 levels deep, past the 64 Paddock can carry (corrupt or edited)`;

    const shown = await cliAsync(['show', deep.id], env);
    assert.equal(shown.code, 1);
    assert.ok(shown.stderr.includes(reason), shown.stderr);
    assert.doesNotMatch(shown.stderr, /call stack|\n\s+at /);

    const listed = await cliAsync(['list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout) as { id: string; unreadable?: string; lifecycle?: { state: string } }[];
    assert.ok(rows.find((r) => r.id === deep.id)?.unreadable?.includes(reason), listed.stdout);
    assert.equal(rows.find((r) => r.id === good.id)?.lifecycle?.state, 'completed');

    const cleaned = await cliAsync(['cleanup', deep.id, '--yes'], env);
    assert.doesNotMatch(cleaned.stderr, /call stack|\n\s+at /, cleaned.stderr);
    assert.ok(cleaned.stderr.includes(reason), `cleanup: ${cleaned.code} ${cleaned.stderr}`);
    // Nothing of it was rewritten; the good agent cleans up.
    assert.equal(readFileSync(file, 'utf8'), text);
    const cleanedGood = await cliAsync(['cleanup', good.id, '--yes'], env);
    assert.equal(cleanedGood.code, 0, cleanedGood.stderr);
  });
});
