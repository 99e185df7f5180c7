import * as assert from 'node:assert/strict';
import { escapeCell, lookOf, tooltipMarkdown } from '../../../../src/ui/tree/presentation';
import { initialRecord } from '../../../../src/core/store/newJob';
import { sampleJob } from '../../core/store/helpers';

describe('tree presentation of text Paddock did not write', () => {
  const hostile = 'evil\x1b]52;c;aGk=\x07 [click](command:paddock.stopAll) <img src=x> **bold**\nfake | row';

  it('a tooltip cell shows controls as escapes and cannot become a link, an image, HTML or a new row', () => {
    const cell = escapeCell(hostile);
    assert.doesNotMatch(cell, /[\x00-\x1f\x7f-\x9f]/); // eslint-disable-line no-control-regex
    // Every character markdown or HTML acts on is escaped.
    for (let i = 0; i < cell.length; i++) if ('[]()<>*|'.includes(cell[i])) assert.equal(cell[i - 1], '\\', `${cell[i]} at ${i} in ${cell}`);
    assert.match(cell, /\\\\x1b\\\]52/);
  });

  it("the whole tooltip holds no control character from a job's title, error or holders", () => {
    const job = initialRecord('abc123', sampleJob({ title: hostile }), new Date().toISOString());
    job.lifecycle.detail = 'exit 1\x1b[2J';
    const now = new Date().toISOString();
    job.cleanup = {
      phase: 'incomplete', remaining: ['worktree'], stage: 'removing', failures: 1, nextAttemptAt: null,
      lastError: 'git said\r\nFAKE', needsAttention: false, holders: [{ pid: 5, command: 'x\x1b]0;title\x07' }],
      deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: now, updatedAt: now,
    };
    const md = tooltipMarkdown(job, Date.now());
    assert.doesNotMatch(md, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/); // eslint-disable-line no-control-regex
    assert.equal(md.split('\n').filter((l) => l.includes('FAKE')).length, 1);
  });
});

describe('tree presentation of auto-approve and leftovers', () => {
  it('the row says how many processes the agent left running and that it acts without asking; the tooltip lists them', () => {
    const job = initialRecord('abc123', sampleJob({ title: 'codex run' }), new Date().toISOString());
    job.lifecycle = { ...job.lifecycle, state: 'completed', exitCode: 0, endedAt: new Date().toISOString() };
    assert.equal(lookOf(job, Date.now()).description, 'completed');
    job.autoApprove = true;
    job.leftovers = [
      { pid: 4242, command: 'codex app-server', startTime: 1, bootId: 'b' },
      { pid: 4243, command: 'codex-helper --stdio', startTime: 2, bootId: 'b' },
    ];
    assert.equal(lookOf(job, Date.now()).description, 'completed · 2 processes left running · auto-approve');
    const md = tooltipMarkdown(job, Date.now());
    assert.ok(md.includes('| Left running | pid 4242 \\(codex app\\-server\\), pid 4243 \\(codex\\-helper \\-\\-stdio\\) |'), md);
    assert.ok(md.includes('| Auto-approve | on: the agent acts without asking for approval |'), md);
    job.leftovers = [job.leftovers[0]];
    assert.equal(lookOf(job, Date.now()).description, 'completed · 1 process left running · auto-approve');
  });
});
