import * as assert from 'node:assert/strict';
import { EvidenceSummarySchema, LostEntrySchema } from '../../../../src/core/git/evidenceManifest';
import { checkJobRecord, JOB_RECORD_KEYS, KNOWN_KEYS } from '../../../../src/core/store/recordCheck';
import { checkTimelineEntry, TIMELINE_KEYS } from '../../../../src/core/store/timelineCheck';
import * as schemas from '../../../../src/core/store/recordSchemas';
import { socketFileName } from '../../../../src/core/protocol/runtimeDir';

/** A record with every optional part present (as many constraints in play as possible). */
function fullRecord(): Record<string, unknown> {
  const sha = 'a'.repeat(40);
  const holder = { pid: 4242, command: 'node server.js' };
  return {
    schemaVersion: 1,
    id: 'abc123def',
    title: 'fix the tests',
    repo: '/tmp/repo',
    worktree: '/tmp/repo.worktrees/abc123def',
    branch: 'paddock/abc123def',
    base: 'main',
    baseSha: sha,
    profile: 'shell',
    command: ['bash', '-lc', 'echo hi'],
    cwd: '/tmp/repo.worktrees/abc123def',
    envNames: ['HOME', 'TOKEN'],
    createdAt: '2026-12-03T09:00:00.000Z',
    settings: {
      stopGraceMs: 2000,
      waitingPattern: '\\[y/n\\]',
      idleSeconds: 30.5,
      resumeArgs: ['--resume'],
      secretEnvNames: ['TOKEN'],
      autoRestart: true,
      recoveryLimit: 3,
      endLeftoversOnExit: false,
      worktree: { copy: ['.env'], link: ['node_modules'], setup: 'npm ci', setupTimeoutSeconds: 600, teardown: null },
      checkCommand: 'npm test',
    },
    lifecycle: {
      state: 'completed',
      generation: 2,
      exitCode: 0,
      signal: null,
      pid: 1234,
      workerPid: 1233,
      startedAt: '2026-12-03T09:00:01.000Z',
      endedAt: '2026-12-03T09:05:00.000Z',
      detail: 'exit 0',
      lastActivityAt: '2026-12-03T09:04:59.000Z',
      waitingReason: 'idle',
    },
    launch: { workerPid: 1233, startTime: 987654, bootId: 'boot-1', generation: 2, launchedAt: '2026-12-03T09:00:00.500Z' },
    execution: {
      ownerToken: 'o'.repeat(32),
      generation: 2,
      pid: 1233,
      startTime: 987654,
      bootId: 'boot-1',
      socketPath: `/tmp/paddock/${socketFileName('abc123def', 2)}`,
      socketToken: 't'.repeat(32),
      claimedAt: '2026-12-03T09:00:00.700Z',
    },
    recoveries: 1,
    cleanup: {
      phase: 'incomplete',
      remaining: ['worktree', 'branch'],
      stage: 'removing',
      failures: 2,
      nextAttemptAt: '2026-12-03T09:10:00.000Z',
      lastError: 'busy',
      needsAttention: true,
      holders: [holder],
      deleteBranch: false,
      fingerprint: 'f'.repeat(64),
      branchOutcome: 'branch kept: 3 commits not merged',
      requestedAt: '2026-12-03T09:06:00.000Z',
      updatedAt: '2026-12-03T09:07:00.000Z',
      regenerable: ['node_modules/'],
      archiveLimitBytes: 100_000_000,
      dropUnarchivable: false,
      awaitingConsent: true,
      teardownDone: false,
    },
    evidence: {
      patch: '/tmp/home/jobs/abc123def/evidence/changes.patch',
      snapshotRef: 'refs/paddock/snapshots/abc123def',
      headSha: sha,
      capturedAt: '2026-12-03T09:06:30.000Z',
      snapshotSha: 'b'.repeat(64),
      archive: '/tmp/home/jobs/abc123def/evidence/untracked.tar',
      inventory: '/tmp/home/jobs/abc123def/evidence/inventory.json',
      summary: {
        captured: { files: 12, bytes: 3456 },
        archived: { files: 1, bytes: 10.5 },
        emptyDirs: 2,
        regenerable: { files: 100, bytes: 2e6, roots: ['node_modules'] },
        lost: [{ path: 'big.bin', bytes: 2e9, why: 'too-big' }],
        lostCount: 1,
        nested: ['vendor/lib'],
        keptGitDirs: ['modules/vendor/old'],
        keptCommits: 0,
      },
    },
    landing: { kind: 'pr', into: 'origin/main', commit: null, url: 'https://example.invalid/pr/1', at: '2026-12-03T09:08:00.000Z', branchHead: 'a'.repeat(40), foundLater: true },
    group: { id: 'grp12345', title: 'three attempts', index: 2, size: 3 },
    check: { state: 'failed', exitCode: 1, durationMs: 1200, at: '2026-12-03T09:04:00.000Z', summary: '1 failing', runner: { pid: 77, startTime: 1234, bootId: 'b00t' } },
    usage: { cpuPercent: 12.5, rssBytes: 1e8, diskBytes: null, outputBytes: 5000, tokensIn: 10, tokensOut: null, costUsd: 0.42, sampledAt: '2026-12-03T09:04:00.000Z' },
    setup: { ports: [3000, 65535], state: 'done', exitCode: 0 },
    autoApprove: true,
    leftovers: [holder, { pid: 4242, command: 'codex app-server', startTime: 123456, bootId: '0b4f1c2e-boot' }],
    leftoversFate: { count: 2, outcome: 'ended', survivors: '4242 (codex app-server)', generation: 1 },
  };
}

/** The smallest record: every nullable part null, every optional part absent. */
function minimalRecord(): Record<string, unknown> {
  const r = fullRecord();
  for (const key of ['landing', 'group', 'check', 'usage', 'setup', 'autoApprove', 'leftovers', 'leftoversFate']) delete r[key];
  Object.assign(r, { worktree: null, branch: null, base: null, baseSha: null, profile: null, launch: null, execution: null, cleanup: null, evidence: null });
  return r;
}

/** A small seeded generator, so a failure names a reproducible case. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Around every bound the schema uses.
const LENGTHS = [0, 1, 15, 16, 32, 33, 39, 40, 64, 65, 100, 101, 128, 129, 200, 201, 256, 257, 300, 301, 500, 501, 2000, 2001, 4000, 4001, 4096, 4097, 8192, 8193];
const NUMBERS = [-1, -0.5, 0, 0.5, 1, 2, 1.5, 16, 17, 50, 100, 101, 65535, 65536, 86_400, 86_400.5, 600_000, 600_001, 2 ** 53 - 1, 2 ** 53, 1e308];
const WORDS = [
  'queued', 'running', 'waiting', 'completed', 'orphaned', 'bogus', 'signal', 'pattern', 'idle', 'process', 'worktree', 'branch',
  'terminating', 'capturing', 'removing', 'complete', 'requested', 'merge', 'pr', 'ff', 'passed', 'none', 'done', 'too-big', 'unreadable',
  'abc123', 'ABC123', 'abc12', 'abcdefghijklm', 'a'.repeat(40), 'g'.repeat(40), 'a'.repeat(65), '',
  // Claims and dates (bug 48): another agent's, unnormalized, not a real date.
  '/tmp/repo.worktrees/other123', '/tmp/repo.worktrees/abc123def/', '/tmp/repo.worktrees/../repo.worktrees/abc123def', 'paddock/other123',
  'refs/paddock/snapshots/other123', '/tmp/paddock/other.sock', '/tmp/home/jobs/other123/evidence/inventory.json', '2026-02-30T00:00:00.000Z', '2026-12-03 09:00:00', 'yesterday',
];

function randomValue(rand: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  switch (Math.floor(rand() * 8)) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return pick(NUMBERS);
    case 3:
      return 'x'.repeat(pick(LENGTHS));
    case 4:
      return pick(WORDS);
    case 5:
      return depth > 1 ? [] : Array.from({ length: pick([0, 1, 2, 51, 65, 257]) }, () => (rand() < 0.5 ? pick(WORDS) : pick(NUMBERS)));
    case 6:
      return depth > 1 ? {} : { files: pick(NUMBERS), bytes: pick(NUMBERS), pid: pick(NUMBERS), command: pick(WORDS) };
    default:
      return 'x'.repeat(pick(LENGTHS)) + pick(WORDS);
  }
}

type Container = Record<string, unknown> | unknown[];

/** Every object or array in the record, with the keys it holds. */
function containers(value: unknown, out: Container[] = []): Container[] {
  if (typeof value === 'object' && value !== null) {
    out.push(value as Container);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

/** One to three random edits: a value replaced, a key removed, an unknown key added, an array grown. */
function mutate(record: Record<string, unknown>, rand: () => number): Record<string, unknown> {
  const value = structuredClone(record);
  const edits = 1 + Math.floor(rand() * 3);
  for (let e = 0; e < edits; e++) {
    const all = containers(value);
    const target = all[Math.floor(rand() * all.length)];
    const keys = Object.keys(target);
    const kind = rand();
    if (Array.isArray(target)) {
      if (kind < 0.3 && target.length > 0) target.splice(Math.floor(rand() * target.length), 1);
      else if (kind < 0.6) {
        const grown = Math.floor(rand() * 300);
        for (let i = 0; i < grown; i++) target.push(structuredClone(target[0] ?? randomValue(rand, 2)));
      } else if (target.length > 0) target[Math.floor(rand() * target.length)] = randomValue(rand);
      else target.push(randomValue(rand));
    } else if (kind < 0.15 && keys.length > 0) {
      delete target[keys[Math.floor(rand() * keys.length)]];
    } else if (kind < 0.22) {
      target[`unknown${Math.floor(rand() * 3)}`] = randomValue(rand);
    } else if (keys.length > 0) {
      target[keys[Math.floor(rand() * keys.length)]] = randomValue(rand);
    }
  }
  // As read from a file: JSON values only.
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/**
 * The fast check must accept nothing zod rejects and return what zod returns;
 * what it sends to zod and zod accepts must differ only by keys zod strips
 * (the fast check accepts zod's result).
 */
function agree(value: unknown, label: string): 'accepted' | 'rejected' {
  const fast = checkJobRecord(value);
  const zod = schemas.JobRecordSchema.safeParse(value);
  if (fast !== undefined) {
    assert.ok(zod.success, `${label}: the fast check accepted a record zod rejects (${zod.success ? '' : JSON.stringify(zod.error.issues[0])})`);
    // Key order included: a record written back must come out byte for byte as before.
    assert.equal(JSON.stringify(fast), JSON.stringify(zod.data), `${label}: the fast check returned another record than zod`);
    return 'accepted';
  }
  if (zod.success) {
    // zod keeps a top-level field it does not know (a newer version's) and strips nested ones.
    const known = Object.fromEntries(Object.entries(zod.data).filter(([key]) => JOB_RECORD_KEYS.has(key)));
    assert.deepEqual(checkJobRecord(known), known, `${label}: zod accepts a record the fast check refuses, beyond unknown keys`);
  }
  return 'rejected';
}

/** The path of every value in the record (objects and arrays included). */
function paths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (at.length > 0) out.push(at);
  if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) paths(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

/** A copy of `record` with the value at `path` replaced (or deleted when `to` is DELETE). */
const DELETE = Symbol('delete');
function edited(record: Record<string, unknown>, path: (string | number)[], to: unknown): unknown {
  const copy = structuredClone(record);
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (to === DELETE) delete parent[last];
  else parent[last] = to;
  return copy;
}

/** Every single edit worth trying at one place: each bound's both sides, each enum word, each type. */
const CANDIDATES: unknown[] = [
  DELETE,
  null,
  true,
  false,
  [],
  {},
  ...NUMBERS,
  ...WORDS,
  ...LENGTHS.map((n) => 'x'.repeat(n)),
  Array.from({ length: 51 }, () => ({ pid: 1, command: 'x' })),
  Array.from({ length: 257 }, () => 'x'),
];

describe('recordCheck (the fast path of reading a job record)', () => {
  it('knows exactly the fields of every zod schema it stands for, in order', () => {
    const all: Record<string, unknown> = { ...schemas, EvidenceSummarySchema, LostEntrySchema };
    for (const [name, known] of Object.entries({ ...KNOWN_KEYS, TimelineEntrySchema: TIMELINE_KEYS })) {
      const schema = all[name] as { shape: Record<string, unknown> } | undefined;
      assert.ok(schema?.shape, `no zod object schema named ${name}`);
      assert.deepEqual([...known], Object.keys(schema.shape), `${name}: the fast check's fields differ from the schema's`);
    }
  });

  it('returns what zod returns for full and minimal records, and drops nothing zod keeps', () => {
    assert.equal(agree(fullRecord(), 'full'), 'accepted');
    assert.equal(agree(minimalRecord(), 'minimal'), 'accepted');
  });

  it('sends a record with a field it does not know to zod, which keeps it (a field of a newer version is not dropped)', () => {
    const record = { ...fullRecord(), addedLater: { by: 'a newer Paddock' } };
    assert.equal(checkJobRecord(record), undefined);
    const parsed = schemas.JobRecordSchema.safeParse(record);
    assert.ok(parsed.success);
    assert.deepEqual((parsed.data as Record<string, unknown>).addedLater, { by: 'a newer Paddock' });
  });

  it('agrees with zod on every single edit at every place of a full and a minimal record', () => {
    const counts = { accepted: 0, rejected: 0 };
    for (const [name, record] of [['full', fullRecord()], ['minimal', minimalRecord()]] as const) {
      for (const path of paths(record)) {
        for (const [n, to] of CANDIDATES.entries()) counts[agree(edited(record, path, to), `${name} record, ${path.join('.')} ← candidate ${n}`)]++;
      }
    }
    assert.ok(counts.accepted > 500 && counts.rejected > 500, JSON.stringify(counts));
  });

  it('agrees with zod on 2,000 records fuzzed with several edits each (seeded)', () => {
    const counts = { accepted: 0, rejected: 0 };
    for (let seed = 1; seed <= 2_000; seed++) {
      const rand = prng(seed);
      const value = mutate(rand() < 0.5 ? fullRecord() : minimalRecord(), rand);
      counts[agree(value, `seed ${seed}`)]++;
    }
    // Both outcomes well represented, or the fuzzing proves little.
    assert.ok(counts.accepted > 200 && counts.rejected > 200, JSON.stringify(counts));
  });

  it('rejects what is not a record at all, and a record of another schema version', () => {
    for (const value of [null, 1, 'x', [], [fullRecord()], { ...fullRecord(), schemaVersion: 2 }, { ...fullRecord(), schemaVersion: '1' }]) {
      assert.equal(checkJobRecord(value), undefined);
      assert.equal(schemas.JobRecordSchema.safeParse(value).success, false);
    }
  });
});

describe('recordCheck: timeline entries (checked before every append)', () => {
  const entry = { at: '2026-12-03T10:00:00.000Z', generation: 2, type: 'transition', from: 'starting', to: 'running', message: 'exit 0' };
  const variants: [string, unknown][] = [
    ['full', entry],
    ['minimal', { at: entry.at, generation: 0, type: 'claimed' }],
    ['message left undefined', { ...entry, message: undefined }],
    ['longest message', { ...entry, message: 'm'.repeat(2000) }],
    ['message too long', { ...entry, message: 'm'.repeat(2001) }],
    ['type too long', { ...entry, type: 't'.repeat(65) }],
    ['unknown state', { ...entry, to: 'sleeping' }],
    ['negative generation', { ...entry, generation: -1 }],
    ['fractional generation', { ...entry, generation: 1.5 }],
    ['no time', { generation: 1, type: 'x' }],
    ['empty time', { ...entry, at: '' }],
    ['null message', { ...entry, message: null }],
    ['a field it does not know', { ...entry, extra: 1 }],
    ['not an object', ['x']],
  ];

  it('accepts exactly what TimelineEntrySchema accepts, and returns what zod returns', () => {
    const accepted: string[] = [];
    for (const [label, value] of variants) {
      const fast = checkTimelineEntry(value);
      const zod = schemas.TimelineEntrySchema.safeParse(value);
      if (fast) {
        assert.ok(zod.success, `${label}: accepted, but zod rejects it`);
        assert.equal(JSON.stringify(fast), JSON.stringify(zod.data), label);
        accepted.push(label);
      } else if (zod.success) {
        assert.ok(label === 'a field it does not know', `${label}: zod accepts it, the fast check does not`);
      }
    }
    assert.deepEqual(accepted, ['full', 'minimal', 'message left undefined', 'longest message']);
  });
});
