import * as assert from 'node:assert/strict';
import { capabilitiesOf, escapeCell, lookOf, tooltipMarkdown } from '../../../../src/ui/tree/presentation';
import { attachBlocker, cleanupBlocker, retryCleanupBlocker } from '../../../../src/core/operations/rules';
import { CLEANUP_PHASES } from '../../../../src/core/store/schema';
import { sampleRecord } from '../../core/store/helpers';

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
    const job = sampleRecord('abc123', { title: hostile }, new Date().toISOString());
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
    const job = sampleRecord('abc123', { title: 'codex run' }, new Date().toISOString());
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

describe('tree presentation of the per-agent figures', () => {
  const MB = 1024 * 1024;
  function runningJob() {
    const job = sampleRecord('abc123', { title: 'work', worktree: '/tmp/w' }, new Date().toISOString());
    job.lifecycle.state = 'running';
    job.lifecycle.startedAt = new Date(Date.now() - 90_000).toISOString();
    job.usage = { cpuPercent: 85.2, rssBytes: 212 * MB, diskBytes: 52 * MB, outputBytes: 4096, tokensIn: 12_300, tokensOut: 4100, costUsd: 1.25, sampledAt: new Date().toISOString() };
    return job;
  }

  it('the tooltip shows running time, CPU, memory, disk, output and tokens with the cost', () => {
    const md = tooltipMarkdown(runningJob(), Date.now());
    for (const row of ['| Running for | 1m |', '| CPU | 85% |', '| Memory | 212 MB |', '| Disk | 52 MB |', '| Output | 4\\.0 KB |', '| Tokens | 12k in / 4\\.1k out · $1\\.25 |']) {
      assert.ok(md.includes(row), `${row} in\n${md}`);
    }
    assert.match(md, /\| Figures as of \|/);
  });

  it('an ended agent shows no CPU or memory (history, not a cost), and no figure is shown as 0 when unknown', () => {
    const job = runningJob();
    job.lifecycle.state = 'completed';
    job.usage = { ...job.usage!, tokensIn: null, tokensOut: null };
    const md = tooltipMarkdown(job, Date.now());
    assert.doesNotMatch(md, /\| (CPU|Memory|Tokens|Running for) \|/);
    assert.match(md, /\| Disk \| 52 MB \|/);
  });

  it('the description carries the figures only with paddock.tree.showUsage', () => {
    const job = runningJob();
    assert.equal(lookOf(job, Date.now()).description, 'running · 1m');
    assert.equal(lookOf(job, Date.now(), { showUsage: true }).description, 'running · 1m · 85% CPU · 212 MB · 52 MB disk · 16k tokens');
  });

  it('a suspended agent keeps its recorded state, said suspended with how to resume it; a waiting one no longer ranks first', () => {
    const job = runningJob();
    const look = lookOf(job, Date.now(), { suspension: { worker: 4242, agent: [] } });
    assert.equal(look.description, 'running · 1m · suspended (SIGSTOP): worker 4242 — kill -CONT 4242 resumes it');
    assert.match(look.contextValue, /^agent:running:/);
    const md = tooltipMarkdown(job, Date.now(), undefined, { worker: null, agent: [77, 78] });
    assert.ok(md.includes('| Suspended | suspended \\(SIGSTOP\\): agent 77, 78 — kill \\-CONT 77 78 resumes them |'), md);
    job.lifecycle.state = 'waiting';
    job.lifecycle.waitingReason = 'idle';
    assert.equal(lookOf(job, Date.now()).rank, 0);
    assert.equal(lookOf(job, Date.now(), { suspension: { worker: null, agent: [77] } }).rank, 2, 'it waits for nobody');
  });
});

describe('tree presentation of a stopping agent', () => {
  it('offers Attach while the agent shuts down, as paddock attach allows (one rule); not once it ended', () => {
    const job = sampleRecord('abc123', {}, new Date().toISOString());
    job.lifecycle = { ...job.lifecycle, state: 'cancelling', startedAt: new Date().toISOString() };
    assert.equal(attachBlocker(job), null);
    assert.ok(capabilitiesOf(job).includes('attach'), capabilitiesOf(job).join(' '));
    job.lifecycle = { ...job.lifecycle, state: 'cancelled', endedAt: new Date().toISOString() };
    assert.equal(capabilitiesOf(job).includes('attach'), false);
  });
});

describe('tree presentation of a cleanup interrupted mid-phase', () => {
  it('whenever Clean Up is refused for a begun cleanup and points to Retry Cleanup Now, Retry Cleanup Now is offered', () => {
    const now = new Date().toISOString();
    for (const phase of CLEANUP_PHASES) {
      const job = sampleRecord('abc123', {}, now);
      job.lifecycle = { ...job.lifecycle, state: 'completed', exitCode: 0, startedAt: now, endedAt: now };
      job.cleanup = {
        phase, remaining: ['worktree', 'branch'], stage: null, failures: 0, nextAttemptAt: null, lastError: null, needsAttention: false,
        holders: [], deleteBranch: false, fingerprint: null, branchOutcome: null, requestedAt: now, updatedAt: now,
      };
      const refusal = cleanupBlocker(job) ?? '';
      if (!/Retry Cleanup Now/.test(refusal)) continue;
      assert.equal(retryCleanupBlocker(job), null, `${phase}: ${refusal}`);
      assert.ok(capabilitiesOf(job).includes('retryCleanup'), `${phase}: ${capabilitiesOf(job).join(' ')}`);
    }
  });
});
