/** When new figures are worth a store write: a figure appears or goes, or moves by more than 5 %. */
import * as assert from 'node:assert/strict';
import type { Usage } from '../../../../src/core/store/schema';
import { usageChanged } from '../../../../src/core/usage/significance';
import { formatBytes, formatCount, usageFacts, usageLine } from '../../../../src/core/usage/usageText';

const base: Usage = { cpuPercent: 50, rssBytes: 200 * 1024 * 1024, diskBytes: 50 * 1024 * 1024, outputBytes: 100_000, tokensIn: 1000, tokensOut: 100, sampledAt: '2026-01-01T00:00:00.000Z' };

describe('usage/significance and usageText', () => {
  it('writes the first figures, a figure appearing or vanishing, and moves over 5 %', () => {
    assert.equal(usageChanged(null, base), true);
    assert.equal(usageChanged(base, { ...base, sampledAt: 'later' }), false, 'only the time moved');
    assert.equal(usageChanged(base, { ...base, rssBytes: base.rssBytes! * 1.04 }), false, '4 % is not enough');
    assert.equal(usageChanged(base, { ...base, rssBytes: Math.round(base.rssBytes! * 1.06) }), true);
    assert.equal(usageChanged(base, { ...base, tokensOut: 106 }), true);
    assert.equal(usageChanged(base, { ...base, tokensIn: null }), true, 'a figure that goes away');
    assert.equal(usageChanged({ ...base, cpuPercent: 0.5 }, { ...base, cpuPercent: 1.5 }), false, 'CPU wobbling under the floor');
    assert.equal(usageChanged({ ...base, outputBytes: 10 }, { ...base, outputBytes: 500 }), false, 'a few bytes of output');
  });

  it('words: unknown figures are left out, CPU and memory only while the agent runs', () => {
    assert.equal(formatBytes(812), '812 B');
    assert.equal(formatBytes(5 * 1024 * 1024 + 300_000), '5.3 MB');
    assert.equal(formatBytes(212 * 1024 * 1024), '212 MB');
    assert.equal(formatCount(12_345), '12k');
    assert.equal(formatCount(1_234), '1.2k');
    assert.deepEqual(usageFacts({ ...base, tokensIn: null, tokensOut: null }).map((f) => f.label), ['CPU', 'Memory', 'Disk', 'Output']);
    assert.deepEqual(usageFacts({ ...base, cpuPercent: null, rssBytes: null }).map((f) => f.label), ['Disk', 'Output', 'Tokens']);
    assert.equal(usageLine(base), '50% CPU · 200 MB · 50 MB disk · 1.1k tokens');
    assert.equal(usageLine(null), '');
  });
});
