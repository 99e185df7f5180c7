import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as z from '../../../../src/core/common/zod';
import { validateMessage } from '../../../../src/core/protocol/framing';
import { ClientMessageSchema } from '../../../../src/core/protocol/messages';
import { readRepoConfig } from '../../../../src/core/repoConfig/paddockJson';
import { PolicyFile } from '../../../../src/core/store/policy';
import { parseRecordText } from '../../../../src/core/store/records';
import { TimelineEntrySchema } from '../../../../src/core/store/recordSchemas';

/**
 * zod/mini loads no locale: without the English one installed by
 * src/core/common/zod.ts every message below would read "Invalid input".
 * These are the sentences people see, exactly as classic zod wrote them.
 */
describe('common/zod: issue messages stay English sentences', () => {
  it('has the English locale installed', () => {
    assert.equal(typeof z.config().localeError, 'function');
    const parsed = z.number().check(z.int(), z.gte(1)).safeParse(0);
    assert.equal(parsed.success, false);
    assert.equal(parsed.error?.issues[0].message, 'Too small: expected number to be >=1');
  });

  it('says why a record is unreadable', () => {
    const loaded = parseRecordText('abc123', JSON.stringify({ schemaVersion: 1, id: 'abc123', title: 5 }));
    assert.deepEqual(loaded, { kind: 'unreadable', reason: 'the record does not match the schema (title: Invalid input: expected string, received number and 17 more)' });
    const timeline = TimelineEntrySchema.safeParse({ at: '', generation: 1.5, type: 'x'.repeat(65), from: 'bogus' });
    assert.deepEqual(
      timeline.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      [
        'at: not an ISO 8601 date and time',
        'generation: Invalid input: expected int, received number',
        'type: Too big: expected string to have <=64 characters',
        'from: Invalid option: expected one of "queued"|"starting"|"running"|"waiting"|"cancelling"|"completed"|"failed"|"cancelled"|"orphaned"',
      ],
    );
  });

  it('says why a socket frame is invalid', () => {
    assert.deepEqual(validateMessage({ type: 'resize', cols: 1001, rows: 24 }, ClientMessageSchema), {
      ok: false,
      reason: 'invalid message at cols: Too big: expected number to be <=1000',
    });
    assert.deepEqual(validateMessage({ type: 'detach', extra: 1 }, ClientMessageSchema), { ok: false, reason: 'invalid message: Unrecognized key: "extra"' });
    assert.deepEqual(validateMessage({ type: 'nope' }, ClientMessageSchema), {
      ok: false,
      reason: "invalid message at type: Invalid discriminator value. Expected 'attach' | 'hello' | 'input' | 'resize' | 'detach' | 'refresh' | 'send' | 'signal' | 'stop'",
    });
  });

  it('says why a store policy or a .paddock.json is refused', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'pd-zod-'));
    try {
      const policy = new PolicyFile(home, () => undefined);
      assert.throws(() => policy.write({ maxConcurrent: 0 }), { message: 'The store policy is invalid: maxConcurrent: Too small: expected number to be >=1.' });
      writeFileSync(path.join(home, '.paddock.json'), JSON.stringify({ ports: 65, bogus: true }));
      await assert.rejects(readRepoConfig(home), {
        message: `${path.join(home, '.paddock.json')} is not a valid Paddock configuration: ports: Too big: expected number to be <=64.`,
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
