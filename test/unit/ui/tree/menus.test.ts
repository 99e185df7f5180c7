/**
 * The tree's context menu is declared in package.json as when-clauses over the
 * capabilities in an agent's `contextValue`; the capabilities come from pure
 * presentation. These tests hold the two halves together: every capability
 * presentation can produce opens the menu entries it should, and every
 * when-clause names a capability presentation can produce.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LIFECYCLE_STATES, type JobRecord } from '../../../../src/core/store/schema';
import { capabilitiesOf, groupLookOf, lookOf } from '../../../../src/ui/tree/presentation';
import { sampleRecord } from '../../core/store/helpers';

interface MenuEntry {
  command?: string;
  submenu?: string;
  when?: string;
  group?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { menus: Record<string, MenuEntry[]> };
};
// The row's menu and its Land submenu; a submenu entry counts as "submenu:<id>".
const itemMenu = [...manifest.contributes.menus['view/item/context'], ...manifest.contributes.menus['paddock.land']]
  .filter((e) => e.when?.includes('viewItem =~ /^agent:'))
  .map((e) => ({ ...e, command: e.command ?? `submenu:${e.submenu}` }));

/** The commands each capability should offer on an agent's item. */
const EXPECTED: Record<string, string[]> = {
  log: ['paddock.showLog'],
  attach: ['paddock.attach', 'paddock.attachReadOnly'],
  send: ['paddock.sendPrompt'],
  stop: ['paddock.stop'],
  retry: ['paddock.retry'],
  cleanup: ['paddock.cleanUp'],
  retryCleanup: ['paddock.retryCleanup'],
  worktree: ['paddock.openWorktree', 'paddock.openChanges'],
  branch: ['paddock.copyBranch'],
  patch: ['paddock.revealPatch'],
  consent: ['paddock.cleanUpAnyway'],
  restore: ['paddock.restore'],
  review: ['paddock.sendReview'],
  land: ['submenu:paddock.land', 'paddock.merge', 'paddock.apply', 'paddock.createPullRequest'],
  update: ['paddock.update'],
  forget: ['paddock.forget'],
  check: ['paddock.runCheck'],
  keep: ['paddock.keepAttempt'],
};

/** The commands each capability should offer on a group of attempts. */
const GROUP_EXPECTED: Record<string, string[]> = {
  compare: ['paddock.compareAttempts', 'paddock.diffAttempts'],
  stop: ['paddock.stopGroup'],
  send: ['paddock.sendPromptToGroup'],
};
const groupMenu = manifest.contributes.menus['view/item/context'].filter((e) => e.when?.includes('viewItem =~ /^group:'));

/** The `viewItem =~ /…/` of a when-clause, as VS Code evaluates it (a JavaScript regular expression). */
function viewItemPattern(when: string): RegExp {
  const match = /viewItem =~ \/(.+)\/(\s|$)/.exec(when);
  assert.ok(match, `no viewItem pattern in ${when}`);
  return new RegExp(match[1]);
}

/** The capability word a when-clause tests for (`…\bstop\b`). */
function capabilityOf(when: string): string {
  const match = /\\b([A-Za-z]+)\\b\/(\s|$)/.exec(when);
  assert.ok(match, `no capability in ${when}`);
  return match[1];
}

/** A spread of records: every lifecycle state, with and without worktree, branch, cleanup and evidence. */
function corpus(): JobRecord[] {
  const now = new Date().toISOString();
  const jobs: JobRecord[] = [];
  for (const state of LIFECYCLE_STATES) {
    for (const variant of ['plain', 'noWorktree', 'incomplete', 'consent', 'complete', 'attempt', 'checking'] as const) {
      const job = sampleRecord('abc123', {}, now);
      if (variant === 'attempt' || variant === 'checking') job.group = { id: 'grp12345', title: 'task', index: 1, size: 2 };
      if (variant === 'checking') job.check = { state: 'running', exitCode: null, durationMs: null, at: now, summary: '' };
      job.lifecycle.state = state;
      job.worktree = variant === 'noWorktree' ? null : '/tmp/paddock-worktree';
      job.branch = variant === 'noWorktree' ? null : 'paddock/abc123';
      if (variant === 'incomplete' || variant === 'consent' || variant === 'complete') {
        job.cleanup = {
          phase: variant === 'complete' ? 'complete' : 'incomplete', remaining: variant === 'complete' ? [] : ['worktree'], stage: 'removing',
          failures: 1, nextAttemptAt: null, lastError: null, needsAttention: false, holders: [], deleteBranch: false, fingerprint: null,
          branchOutcome: null, requestedAt: now, updatedAt: now, awaitingConsent: variant === 'consent',
        };
        job.evidence = { patch: '/tmp/p.patch', snapshotRef: 'refs/paddock/snapshots/abc123', headSha: null, capturedAt: now };
      }
      jobs.push(job);
    }
  }
  return jobs;
}

describe('tree presentation ↔ the context menu in package.json', () => {
  const jobs = corpus();
  const produced = new Set(jobs.flatMap(capabilitiesOf));

  it('every capability presentation can produce has an expected set of menu entries', () => {
    for (const capability of produced) assert.ok(EXPECTED[capability], `capability "${capability}" has no menu entries expected of it`);
  });

  it("every agent when-clause names a capability presentation can produce", () => {
    for (const entry of itemMenu) assert.ok(produced.has(capabilityOf(entry.when!)), `${entry.command} waits for "${capabilityOf(entry.when!)}", which no agent ever has`);
  });

  it("for every record, the menu shows exactly the commands of the record's capabilities", () => {
    for (const job of jobs) {
      const contextValue = lookOf(job, Date.now()).contextValue;
      const shown = new Set(itemMenu.filter((e) => viewItemPattern(e.when!).test(contextValue)).map((e) => e.command));
      const expected = new Set(capabilitiesOf(job).flatMap((c) => EXPECTED[c]));
      assert.deepEqual([...shown].sort(), [...expected].sort(), `${contextValue}`);
    }
  });

  it('a group of attempts offers exactly the group commands of its capabilities', () => {
    for (const a of jobs) {
      for (const b of jobs) {
        const members = [
          { ...a, group: { id: 'grp12345', title: 'task', index: 1, size: 2 } },
          { ...b, group: { id: 'grp12345', title: 'task', index: 2, size: 2 } },
        ];
        const look = groupLookOf(members);
        const caps = look.contextValue.replace(/^group:/, '').split('.');
        const shown = new Set(groupMenu.filter((e) => viewItemPattern(e.when!).test(look.contextValue)).map((e) => e.command));
        assert.deepEqual([...shown].sort(), [...new Set(caps.flatMap((c) => GROUP_EXPECTED[c]))].sort(), look.contextValue);
      }
    }
  });

  it('an unreadable row offers Stop exactly while its worker still runs, and Remove from List after', () => {
    const unreadableMenu = manifest.contributes.menus['view/item/context'].filter((e) => e.when?.includes('viewItem =~ /^unreadable:'));
    const shown = (contextValue: string) => new Set(unreadableMenu.filter((e) => viewItemPattern(e.when!).test(contextValue)).map((e) => e.command));
    assert.deepEqual([...shown('unreadable:stop')], ['paddock.stop']);
    assert.deepEqual([...shown('unreadable:')], []);
    assert.deepEqual([...shown('unreadable:forget')], ['paddock.forget']);
  });

  it('a capability that is a prefix of another does not open its menu (retry is not retryCleanup)', () => {
    const retryOnly = jobs.find((j) => capabilitiesOf(j).includes('retryCleanup') && !capabilitiesOf(j).includes('retry'));
    assert.ok(retryOnly, 'the corpus has a record that can retry its cleanup but not the agent');
    const contextValue = lookOf(retryOnly, Date.now()).contextValue;
    const retry = itemMenu.filter((e) => e.command === 'paddock.retry');
    assert.ok(retry.length > 0);
    for (const e of retry) assert.equal(viewItemPattern(e.when!).test(contextValue), false, contextValue);
  });
});
