/** Merging .paddock.json under the settings, the port range, the port blocks, and the published schema. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstFreeBlock } from '../../../../src/core/coordinator/ports';
import { resolveSettings } from '../../../../src/core/coordinator/settings';
import { RepoConfigSchema } from '../../../../src/core/repoConfig/paddockJson';
import { DEFAULT_SETUP_TIMEOUT_SECONDS, mergeWorktreeConfig, parsePortRange } from '../../../../src/core/repoConfig/worktreeConfig';

describe('worktree config', () => {
  it('settings win key by key; the file fills the rest; file commands are marked as needing trust', () => {
    const merged = mergeWorktreeConfig(
      { copy: ['.env'], link: ['node_modules'], setup: 'npm ci', teardown: 'docker compose down', ports: 2, setupTimeoutSeconds: 30 },
      { copy: ['.env.local'], setup: 'pnpm i', portRange: '42000-42009' },
    );
    assert.deepEqual(merged.copy, ['.env.local']);
    assert.deepEqual(merged.link, ['node_modules']);
    assert.equal(merged.setup, 'pnpm i');
    assert.equal(merged.teardown, 'docker compose down');
    assert.equal(merged.ports, 2);
    assert.equal(merged.setupTimeoutSeconds, 30);
    assert.deepEqual(merged.portRange, { first: 42000, last: 42009 });
    assert.deepEqual(merged.fromFile, ['teardown']);
  });

  it('defaults without a file or settings; a blank command setting leaves the file in charge', () => {
    const none = mergeWorktreeConfig(null, {});
    assert.deepEqual({ ...none, portRange: undefined }, {
      copy: [],
      link: [],
      setup: null,
      setupTimeoutSeconds: DEFAULT_SETUP_TIMEOUT_SECONDS,
      teardown: null,
      ports: 0,
      portRange: undefined,
      fromFile: [],
    });
    assert.equal(none.portRange, null, 'no ports, no range');
    assert.deepEqual(mergeWorktreeConfig({ ports: 1 }, {}).portRange, { first: 41000, last: 41999 });
    assert.deepEqual(mergeWorktreeConfig({ setup: 'make' }, { setup: '  ' }).fromFile, ['setup']);
  });

  it('reads the port range only when ports are asked for: a bad one fails those, in one sentence, and nothing else', () => {
    assert.equal(mergeWorktreeConfig({ setup: 'make' }, { portRange: '41000-40000' }).portRange, null);
    assert.equal(mergeWorktreeConfig(null, { portRange: '41000-40000', ports: 0 }).ports, 0);
    assert.throws(
      () => mergeWorktreeConfig({ ports: 2 }, { portRange: '41000-40000' }),
      (err: Error) => err.message === 'paddock.worktree.portRange "41000-40000" is not a range like 41000-41999 within 1024-65535.',
    );
  });

  it('refuses a malformed port range in one sentence', () => {
    for (const bad of ['41000', '5-10', '42000-41000', '41000-70000', 'a-b']) {
      assert.throws(() => parsePortRange(bad), /is not a range like 41000-41999 within 1024-65535\./, bad);
    }
  });

  it('finds the first free block past ports in use', () => {
    const range = { first: 100, last: 109 };
    assert.deepEqual(firstFreeBlock(new Set(), 3, range), [100, 101, 102]);
    assert.deepEqual(firstFreeBlock(new Set([101]), 3, range), [102, 103, 104]);
    assert.deepEqual(firstFreeBlock(new Set([100, 104]), 3, range), [101, 102, 103]);
    assert.deepEqual(firstFreeBlock(new Set([102, 107]), 4, range), [103, 104, 105, 106]);
    assert.equal(firstFreeBlock(new Set([104]), 6, range), null);
    assert.deepEqual(firstFreeBlock(new Set(), 10, range), [100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
  });

  it('the published JSON schema names exactly the keys the reader accepts', () => {
    const schema = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'paddock.schema.json'), 'utf8')) as { properties: object; additionalProperties: boolean };
    assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(RepoConfigSchema.shape).sort());
    assert.equal(schema.additionalProperties, false);
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { contributes: { jsonValidation: { fileMatch: string; url: string }[] } };
    assert.deepEqual(pkg.contributes.jsonValidation, [{ fileMatch: '.paddock.json', url: './resources/paddock.schema.json' }]);
  });
});

describe('paddock.worktree.* through the coordinator settings', () => {
  it('keeps the valid keys when one is bad, and drops what is not an object', () => {
    const settings = resolveSettings(() => ({ worktree: { copy: ['.env'], setupTimeoutSeconds: 0, ports: 2, setup: 42 } as never }));
    assert.deepEqual(settings.worktree, { copy: ['.env'], ports: 2 });
    assert.deepEqual(resolveSettings(() => ({ worktree: 'nonsense' as never })).worktree, {});
    assert.deepEqual(resolveSettings(undefined).trustedFolders, []);
  });
});
