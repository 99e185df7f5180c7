/**
 * Bug 48: a record may claim only what Paddock names for its own id — worktree, branch, control
 * socket, snapshot ref — and only real dates. A record edited to claim another agent's reads as
 * unreadable with the reason, every write refuses it, and the other agents read and write as ever.
 * And a field this version does not know is kept through its writes.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { branchNameFor, isIsoTime, recordClaimProblem, snapshotRefFor, worktreePathFor } from '../../../../src/core/store/agentClaims';
import { socketPathFor } from '../../../../src/core/protocol/runtimeDir';
import type { JobRecord, JobStore } from '../../../../src/core/store';
import { createWithWorktree, damageRecord, useTestBed } from './helpers';

type Edit = (record: JobRecord, other: JobRecord) => void;

/** Each edit a reviewer could make, and the field the unreadable reason must name. */
const EDITS: [string, RegExp, Edit][] = [
  ["another agent's worktree", /worktree: '.*' is not a worktree Paddock made for agent/, (r, o) => (r.worktree = o.worktree)],
  ["another agent's branch", /branch: 'paddock\/\w+' is not agent \w+'s branch/, (r, o) => (r.branch = o.branch)],
  ['a worktree with a `..` part', /worktree: '.*' is not an absolute, normalized path/, (r) => (r.worktree = `${path.dirname(r.worktree!)}/../${path.basename(path.dirname(r.worktree!))}/${r.id}`)],
  ['a worktree with a trailing slash', /worktree: .* not an absolute, normalized path/, (r) => (r.worktree = `${r.worktree}/`)],
  ['a relative worktree', /worktree: .* not an absolute, normalized path/, (r) => (r.worktree = `repo.worktrees/${r.id}`)],
  ["a socket path outside the agent's own", /execution\.socketPath: '\/tmp\/elsewhere\.sock' is not the control socket/, (r) => {
    r.lifecycle.state = 'starting';
    r.execution = { ownerToken: 'o'.repeat(32), generation: 1, pid: process.pid, startTime: 1, bootId: 'b', socketPath: '/tmp/elsewhere.sock', socketToken: 't'.repeat(32), claimedAt: new Date().toISOString() };
  }],
  ["another agent's snapshot ref", /evidence\.snapshotRef: .* is not agent \w+'s snapshot ref/, (r, o) => {
    r.evidence = { patch: null, snapshotRef: snapshotRefFor(o.id), headSha: null, capturedAt: new Date().toISOString() };
  }],
  ["another agent's inventory", /evidence\.inventory: .* is not the inventory in agent \w+'s own job folder/, (r, o) => {
    r.evidence = { patch: null, snapshotRef: null, headSha: null, capturedAt: new Date().toISOString(), inventory: `/srv/paddock/jobs/${o.id}/evidence/inventory.json` };
  }],
  ['a date that is not a date', /createdAt: not an ISO 8601 date and time/, (r) => (r.createdAt = 'yesterday')],
  ['a day no month has', /lastActivityAt: not an ISO 8601/, (r) => (r.lifecycle.lastActivityAt = '2026-02-30T10:00:00.000Z')],
];

describe('store: a record claims only what is its own (bug 48)', () => {
  let store: JobStore;
  let home: string;
  useTestBed((bed, s) => {
    store = s;
    home = bed.home;
  });

  const recordFile = (id: string) => path.join(home, 'jobs', id, 'job.json');

  for (const [what, reason, edit] of EDITS) {
    it(`a record edited to name ${what} is unreadable with the reason; writes refuse it; the other agent reads and writes as ever`, async () => {
      const mine = await createWithWorktree(store, { title: 'edited' });
      const other = await createWithWorktree(store, { title: 'other' });
      const record = JSON.parse(fs.readFileSync(recordFile(mine.id), 'utf8')) as JobRecord;
      edit(record, other);
      const text = JSON.stringify(record, null, 2);
      await damageRecord(home, mine.id, text);

      const entries = await store.list();
      const entry = entries.find((e) => e.id === mine.id);
      assert.ok(entry && !entry.ok, `${what}: listed unreadable`);
      assert.match(entry.reason, reason);
      await assert.rejects(store.read(mine.id), (err: Error) => /is unreadable: the record does not match the schema/.test(err.message));
      await assert.rejects(store.update(mine.id, (j) => ({ ...j, title: 'changed' })), /is unreadable/);
      assert.equal(fs.readFileSync(recordFile(mine.id), 'utf8'), text, 'the edited record is left as it is');

      const otherEntry = entries.find((e) => e.id === other.id);
      assert.ok(otherEntry?.ok, 'the other agent lists as ever');
      assert.equal((await store.update(other.id, (j) => ({ ...j, title: 'still works' }))).title, 'still works');
    });
  }

  it('a write that would claim another agent\'s worktree or branch is refused, and the record stays as it was', async () => {
    const mine = await createWithWorktree(store);
    const other = await createWithWorktree(store);
    const before = fs.readFileSync(recordFile(mine.id), 'utf8');
    await assert.rejects(store.update(mine.id, (j) => ({ ...j, worktree: other.worktree })), /is invalid: worktree: .* is not a worktree Paddock made for agent/);
    await assert.rejects(store.update(mine.id, (j) => ({ ...j, branch: other.branch })), /is invalid: branch: /);
    assert.equal(fs.readFileSync(recordFile(mine.id), 'utf8'), before);
  });

  it('keeps a field this version does not know through its writes (a newer version\'s field is not lost)', async () => {
    const job = await createWithWorktree(store);
    const record = JSON.parse(fs.readFileSync(recordFile(job.id), 'utf8')) as Record<string, unknown>;
    await damageRecord(home, job.id, JSON.stringify({ ...record, addedLater: { kept: [1, 2] } }, null, 2));
    const updated = await store.update(job.id, (j) => ({ ...j, title: 'written by this version' }));
    assert.equal(updated.title, 'written by this version');
    const after = JSON.parse(fs.readFileSync(recordFile(job.id), 'utf8')) as Record<string, unknown>;
    assert.equal(after.title, 'written by this version');
    assert.deepEqual(after.addedLater, { kept: [1, 2] });
    assert.deepEqual((await store.read(job.id) as unknown as Record<string, unknown>).addedLater, { kept: [1, 2] });
  });

  it('accepts every worktree, branch and socket Paddock itself names for an id (default place and worktreeRoot)', () => {
    const id = 'abc123de';
    const base = { id, repo: '/home/me/src/app', execution: null, evidence: null };
    for (const worktree of [worktreePathFor('/home/me/src/app', id, null), worktreePathFor('/home/me/src/app', id, '/srv/trees'), worktreePathFor('/home/me/src/app', id, 'rel/../trees')]) {
      assert.equal(recordClaimProblem({ ...base, worktree, branch: branchNameFor(id) }), null, worktree);
    }
    const execution = { generation: 3, socketPath: socketPathFor(id, 3) };
    assert.equal(recordClaimProblem({ ...base, worktree: null, branch: null, execution, evidence: { snapshotRef: snapshotRefFor(id) } }), null);
    assert.notEqual(recordClaimProblem({ ...base, worktree: null, branch: null, execution: { ...execution, generation: 2 }, evidence: null }), null, "another execution's socket");
    assert.notEqual(recordClaimProblem({ ...base, worktree: '/home/me/src/app.worktrees/other123', branch: null }), null);
    assert.notEqual(recordClaimProblem({ ...base, worktree: `/elsewhere/${id}`, branch: null }), null, 'not beside the repository nor in a folder of its name');
  });

  it('judges paths exactly as path.normalize would (the claims read paths part by part, without it)', () => {
    // The rule as it was written with node:path, the oracle for random paths of awkward parts.
    const plain = (p: string) => path.isAbsolute(p) && path.normalize(p) === p && (p === '/' || !p.endsWith('/'));
    const worktreeIsOwn = (id: string, repo: string, worktree: string) => {
      if (!plain(worktree)) return false;
      const name = path.basename(repo);
      const parent = path.dirname(worktree);
      return path.basename(worktree) === id && (parent === path.join(path.dirname(repo), `${name}.worktrees`) || path.basename(parent) === name);
    };
    const inventoryIsOwn = (id: string, inventory: string) => plain(inventory) && inventory.endsWith(`${path.sep}${path.join('jobs', id, 'evidence', 'inventory.json')}`);
    const id = 'abc123de';
    const parts = ['app', 'app.worktrees', id, '.', '..', '', '...', '.x', 'x.', '..y', 'jobs', 'evidence', 'inventory.json', 'a b'];
    let seed = 7;
    // mulberry32: a fixed sequence, so a failure is the same on every run.
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const randomPath = () => {
      const count = random(6);
      const body = Array.from({ length: count }, () => parts[random(parts.length)]).join('/');
      return `${random(5) === 0 ? '' : '/'}${body}${random(6) === 0 ? '/' : ''}`;
    };
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      const repo = random(3) === 0 ? randomPath() || '/' : `/${['home', 'srv', ''][random(3)]}/app`.replace('//', '/');
      const worktree = random(2) === 0 ? randomPath() : path.join(path.dirname(repo), ['app.worktrees', 'app', 'x'][random(3)], random(2) ? id : 'other');
      const inventory = random(2) === 0 ? randomPath() : `/${['srv', '.', 'a b'][random(3)]}/jobs/${id}/evidence/inventory.json`;
      const record = { id, repo, worktree, branch: null, execution: null, evidence: null };
      assert.equal(recordClaimProblem(record) === null, worktreeIsOwn(id, repo, worktree), `repo ${repo}, worktree ${worktree}`);
      const withInventory = { ...record, worktree: null, evidence: { snapshotRef: null, inventory } };
      assert.equal(recordClaimProblem(withInventory) === null, inventoryIsOwn(id, inventory), `inventory ${inventory}`);
      if (worktreeIsOwn(id, repo, worktree)) checked++;
    }
    assert.ok(checked > 500, `enough accepted worktrees among the random ones (${checked})`);
  });

  it('takes as dates only real instants in ISO 8601', () => {
    for (const good of [new Date().toISOString(), '2026-12-03T09:00:00Z', '2024-02-29T23:59:59.999+02:00']) assert.equal(isIsoTime(good), true, good);
    for (const bad of ['', 'now', '2026-12-03', '2026-12-03 09:00:00', '2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-12-03T24:00:00Z', '2026-12-03T09:00:00']) {
      assert.equal(isIsoTime(bad), false, bad);
    }
  });
});
