/** How an agent's worktree setup reads in the tree: "setting up" while it runs, "setup failed (exit N)" after. */
import * as assert from 'node:assert/strict';
import { lookOf, stateInWords } from '../../../../src/ui/tree/presentation';
import { sampleRecord } from '../../core/store/helpers';

describe('tree presentation of worktree setup', () => {
  const now = Date.now();

  it('a starting agent whose setup runs reads "setting up"; without setup, "starting"', () => {
    const job = sampleRecord('abc123', {}, new Date(now - 5000).toISOString());
    job.lifecycle.state = 'starting';
    assert.match(lookOf(job, now).description, /^starting/);
    job.setup = { ports: [], state: 'running', exitCode: null };
    job.lifecycle.detail = 'setting up';
    assert.match(lookOf(job, now).description, /^setting up · 5s$/);
  });

  it('an agent failed by its setup says so with the exit code; one failed later reads as before', () => {
    const job = sampleRecord('abc123', {}, new Date(now).toISOString());
    job.lifecycle = { ...job.lifecycle, state: 'failed', exitCode: 3, detail: 'setup failed (exit 3)' };
    job.setup = { ports: [], state: 'failed', exitCode: 3 };
    assert.equal(stateInWords(job), 'setup failed (exit 3)');
    job.setup = { ports: [], state: 'failed', exitCode: null };
    assert.equal(stateInWords(job), 'setup failed');
    job.setup = { ports: [], state: 'done', exitCode: 0 };
    job.lifecycle.startedAt = new Date(now).toISOString();
    assert.equal(stateInWords(job), 'failed (exit 3)');
  });
});
