/**
 * Fault cases 8 and 10 through the real CLI bundle and the real control socket:
 * damaged records are shown as unreadable (with the reason) while the others
 * keep working and nothing is overwritten; ids that try to name a path are
 * refused with exit 2 and touch nothing outside the store; hostile first
 * frames on the socket get an error frame and a closed connection.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobRecord, JobStore, SCHEMA_VERSION } from '../../src/core/store';
import { logsCommand } from '../../src/cli/commands/logs';
import { PaddockError } from '../../src/core/common/errors';
import { cancelQueued } from '../../src/core/operations/cancelQueued';
import { showCommand } from '../../src/cli/commands/show';
import { stopCommand } from '../../src/cli/commands/stop';
import { DEFAULT_SETTINGS, runCli, Sandbox } from '../unit/core/worker/fixtures';
import { cli, cliAsync, CLI, endProcessesOfHome, exchange, isAlive, treeListing } from './faultKit';
import { git } from '../unit/core/coordinator/coordinatorFixture';

function sample(home: string, title: string): Promise<JobRecord> {
  return new JobStore({ home }).create({
    title,
    repo: '/nonexistent/repo',
    worktree: null,
    branch: null,
    base: null,
    baseSha: null,
    profile: null,
    command: ['true'],
    cwd: '/nonexistent/repo',
    envNames: [],
    settings: DEFAULT_SETTINGS,
  });
}

describe('faults: damaged records and hostile ids (cases 8, 10)', function () {
  this.timeout(180_000);
  let root: string;
  let home: string;
  let cacheHome: string;
  let env: NodeJS.ProcessEnv;

  before(function () {
    if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  });
  beforeEach(() => {
    root = mkdtempSync('/tmp/pdf-');
    home = join(root, 'home');
    mkdirSync(home);
    // Things an injected id might reach: a sibling of the store and a file next to it.
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'job.json'), 'precious');
    writeFileSync(join(root, 'victim.txt'), 'precious');
    // `paddock` keeps its compiled code in the user's cache folder (XDG_CACHE_HOME, else ~/.cache): a
    // place of its own outside `root`, so that everything under `root` but the store must stay as it was.
    cacheHome = mkdtempSync('/tmp/pdf-cache-');
    env = { PATH: process.env.PATH, HOME: root, XDG_CACHE_HOME: cacheHome, LANG: 'C.UTF-8', PADDOCK_HOME: home, PADDOCK_RUNTIME_DIR: join(root, 'r'), PADDOCK_PROCESS_BACKEND: process.env.PADDOCK_PROCESS_BACKEND };
  });
  afterEach(async () => {
    // A cleanup refused at terminating leaves its retry to a background coordinator (`paddock coordinate
    // --until-idle`), which goes on writing into the store: end it (and any worker) before deleting.
    await endProcessesOfHome(home);
    rmSync(root, { recursive: true, force: true });
    rmSync(cacheHome, { recursive: true, force: true });
  });

  const damage: Record<string, (text: string) => string> = {
    corrupt: () => '{"schemaVersion": 1, "id": ###',
    truncated: (t) => t.slice(0, Math.floor(t.length / 2)),
    'wrong schema': (t) => JSON.stringify({ ...JSON.parse(t), lifecycle: { state: 'dancing' } }),
    'future version': (t) => JSON.stringify({ ...JSON.parse(t), schemaVersion: SCHEMA_VERSION + 1 }),
  };

  it('list --json and show name each damaged record unreadable with its reason; the good one works; nothing is overwritten', async () => {
    // Stopped before it ran: a queued record with nothing to launch it would have `list` start a background coordinator.
    const good = await cancelQueued(new JobStore({ home }), (await sample(home, 'good')).id, 'stopped before it started');
    const broken: Record<string, { id: string; file: string; text: string }> = {};
    for (const [kind, breakIt] of Object.entries(damage)) {
      const bad = await sample(home, kind);
      const file = join(home, 'jobs', bad.id, 'job.json');
      const text = breakIt(readFileSync(file, 'utf8'));
      writeFileSync(file, text);
      broken[kind] = { id: bad.id, file, text };
    }
    const listed = cli(['list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout) as { id: string; title?: string; unreadable?: string }[];
    const goodRow = rows.find((r) => r.id === good.id);
    assert.equal(goodRow?.title, 'good');
    for (const [kind, b] of Object.entries(broken)) {
      const row = rows.find((r) => r.id === b.id);
      assert.ok(row, `${kind} record is listed`);
      assert.ok((row.unreadable ?? '').length > 10, `${kind}: the row carries a reason: ${JSON.stringify(row)}`);
      if (kind === 'future version') assert.match(row.unreadable!, /newer Paddock/);
      const shown = cli(['show', b.id], env);
      assert.equal(shown.code, 1, `${kind}: show fails`);
      assert.match(shown.stderr, new RegExp(`Agent ${b.id} is unreadable: .+`), kind);
      assert.doesNotMatch(shown.stderr, /\n\s+at /, 'no stack trace');
      if (kind === 'future version') assert.match(shown.stderr, /newer Paddock/);
      // Stop ends what may still run of it, found by its marker (nothing here), and says the record
      // stays as it is; cleanup, which would need the record's facts, refuses. Neither writes it.
      const stop = cli(['stop', b.id], env);
      assert.equal(stop.code, 0, `${kind}: ${stop.stderr}`);
      assert.match(stop.stdout, new RegExp(`Agent ${b.id} had no process left to stop; its record is still unreadable \\(.+\\) and was left as it is\\.`), kind);
      const cleanup = cli(['cleanup', b.id, '--yes'], env);
      assert.notEqual(cleanup.code, 0, `${kind}: cleanup refuses`);
      assert.doesNotMatch(cleanup.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(readFileSync(b.file, 'utf8'), b.text, `${kind} record untouched`);
    }
    const plain = cli(['list'], env);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, new RegExp(good.id));
    for (const b of Object.values(broken)) assert.match(plain.stdout, new RegExp(b.id));
    const goodShown = cli(['show', good.id, '--json'], env);
    assert.equal(goodShown.code, 0, goodShown.stderr);
    assert.equal(JSON.parse(goodShown.stdout).title, 'good');
  });

  it('a running record that names no owner (no execution, no launch) reads orphaned; stop --force and cleanup finish, ending only what carries its marker (bug 46)', async () => {
    const job = await sample(home, 'no owner');
    const file = join(home, 'jobs', job.id, 'job.json');
    // Something of the agent still running (it carries the job's marker), and an unrelated session beside it.
    const marked = spawn('sleep', ['621'], { detached: true, stdio: 'ignore', env: { ...env, PADDOCK_JOB_ID: job.id } });
    const other = spawn('bash', ['-c', 'sleep 622 & exec sleep 623'], { detached: true, stdio: 'ignore' });
    marked.unref();
    other.unref();
    try {
      const record = JSON.parse(readFileSync(file, 'utf8'));
      Object.assign(record.lifecycle, { state: 'running', generation: 1, startedAt: new Date().toISOString(), pid: null, workerPid: null });
      writeFileSync(file, JSON.stringify({ ...record, execution: null, launch: null }));
      const shown = cli(['show', job.id, '--json'], env);
      assert.equal(shown.code, 0, shown.stderr);
      const lifecycle = JSON.parse(shown.stdout).lifecycle;
      assert.equal(lifecycle.state, 'orphaned');
      assert.match(lifecycle.detail, /names no owner/);
      const stop = cli(['stop', job.id, '--force'], env);
      assert.equal(stop.code, 0, stop.stderr);
      assert.doesNotMatch(stop.stderr, /could not be proven/);
      for (let i = 0; i < 40 && isAlive(marked.pid!); i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(isAlive(marked.pid!), false, 'the marked process was ended');
      const cleanup = cli(['cleanup', job.id, '--yes'], env);
      assert.equal(cleanup.code, 0, cleanup.stderr);
      const after = JSON.parse(cli(['show', job.id, '--json'], env).stdout);
      assert.equal(after.cleanup.phase, 'complete');
      assert.equal(isAlive(other.pid!), true, 'the unrelated session is untouched');
    } finally {
      for (const pid of [marked.pid, other.pid]) {
        try {
          process.kill(-pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });

  describe('a record that claims what is not its agent\'s (bug 48)', () => {
    let repo: string;
    beforeEach(() => {
      repo = join(root, 'repo');
      mkdirSync(repo);
      git(repo, 'init', '-q', '-b', 'main');
      writeFileSync(join(repo, 'README'), 'hello\n');
      git(repo, 'add', 'README');
      git(repo, 'commit', '-qm', 'first');
    });

    /** Starts `sh -c script` with the real CLI and waits until it completed; returns its record. */
    async function finished(script: string): Promise<JobRecord> {
      const started = cli(['start', '--repo', repo, '--', 'sh', '-c', script], env);
      assert.equal(started.code, 0, started.stderr);
      const id = started.stdout.trim();
      for (const deadline = Date.now() + 30_000; ; ) {
        const job = JSON.parse(cli(['show', id, '--json'], env).stdout) as JobRecord;
        if (job.lifecycle.state === 'completed') return job;
        assert.notEqual(job.lifecycle.state, 'failed', JSON.stringify(job.lifecycle));
        assert.ok(Date.now() < deadline, `agent ${id} did not end: ${job.lifecycle.state}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    /** What must not change of another agent's: its worktree's every entry and bytes, its branch's tip, git's registration. */
    const stateOf = (worktree: string, branch: string) => ({
      tree: treeListing(worktree),
      bytes: readFileSync(join(worktree, 'mine.txt'), 'utf8'),
      tip: git(repo, 'rev-parse', `refs/heads/${branch}`),
      registered: git(repo, 'worktree', 'list', '--porcelain'),
    });

    const commitMine = (text: string) => `echo ${text} > mine.txt && git add mine.txt && git -c user.name=t -c user.email=t@t commit -qm mine && echo uncommitted > loose.txt`;

    it('naming another agent\'s worktree or branch, a socket outside its own or a bad date: listed unreadable with the reason, cleanup and restore refuse, forget keeps the whole folder, nothing is removed, the other agent is untouched and keeps working', async () => {
      const edited = await finished(commitMine('a'));
      const other = await finished(commitMine('b'));
      const file = join(home, 'jobs', edited.id, 'job.json');
      const original = readFileSync(file, 'utf8');
      const before = stateOf(other.worktree!, other.branch!);
      const edits: [string, RegExp, (r: JobRecord) => void][] = [
        ['worktree and branch', /worktree: '.*' is not a worktree Paddock made for agent/, (r) => Object.assign(r, { worktree: other.worktree, branch: other.branch, cwd: other.worktree })],
        ['branch', /branch: 'paddock\/\w+' is not agent \w+'s branch/, (r) => (r.branch = other.branch)],
        ['socket', /execution\.socketPath: .* is not the control socket/, (r) => {
          r.lifecycle = { ...r.lifecycle, state: 'running', endedAt: null };
          r.execution = { ownerToken: 'o'.repeat(32), generation: 1, pid: process.pid, startTime: 1, bootId: 'b', socketPath: join(root, 'outside', 'x.sock'), socketToken: 't'.repeat(32), claimedAt: new Date().toISOString() };
        }],
        ['date', /createdAt: not an ISO 8601 date and time/, (r) => (r.createdAt = 'last Tuesday')],
      ];
      for (const [what, reason, edit] of edits) {
        const record = JSON.parse(original) as JobRecord;
        edit(record);
        const text = JSON.stringify(record, null, 2);
        writeFileSync(file, text);
        const rows = JSON.parse(cli(['list', '--json'], env).stdout) as { id: string; title?: string; unreadable?: string }[];
        assert.match(rows.find((r) => r.id === edited.id)?.unreadable ?? '', reason, what);
        assert.ok(rows.find((r) => r.id === other.id)?.title, `${what}: the other agent lists as ever`);
        for (const args of [['cleanup', edited.id, '--yes'], ['cleanup', edited.id, '--yes', '--delete-branch'], ['restore', edited.id, '--to', join(root, 'copy')]]) {
          const refused = cli(args, env);
          assert.notEqual(refused.code, 0, `${what}: ${args.join(' ')} refuses`);
          assert.equal(refused.stderr.trim().split('\n').length, 1, `${what}: one sentence: ${refused.stderr}`);
          assert.match(refused.stderr, /unreadable/, what);
        }
        assert.equal(readFileSync(file, 'utf8'), text, `${what}: the record is left as it is`);
        assert.deepEqual(stateOf(other.worktree!, other.branch!), before, `${what}: the other agent's worktree, branch and registration are as they were`);
        assert.ok(existsSync(edited.worktree!), `${what}: the edited agent's own worktree is still there`);
        // Remove from List deletes nothing of an unreadable agent: its whole folder moves to kept/, as it is.
        const forgotten = cli(['forget', edited.id], env);
        assert.equal(forgotten.code, 0, `${what}: ${forgotten.stderr}`);
        const kept = join(home, 'kept', edited.id);
        assert.equal(readFileSync(join(kept, 'job.json'), 'utf8'), text, `${what}: the record is kept as it is`);
        assert.deepEqual(stateOf(other.worktree!, other.branch!), before, `${what}: forget leaves the other agent as it was`);
        assert.ok(existsSync(edited.worktree!), `${what}: forget leaves the edited agent's worktree`);
        renameSync(kept, join(home, 'jobs', edited.id)); // back in the list for the next edit
      }
      // Put back as it was, both agents clean up as ever; a restore may not fill a folder another record claims.
      writeFileSync(file, original);
      for (const job of [other, edited]) {
        const cleaned = cli(['cleanup', job.id, '--yes'], env);
        assert.equal(cleaned.code, 0, cleaned.stderr);
      }
      const intoOthers = cli(['restore', other.id, '--to', edited.worktree!], env);
      assert.equal(intoOthers.code, 1, intoOthers.stderr);
      assert.match(intoOthers.stderr, new RegExp(`^paddock restore: Will not restore agent ${other.id}: agent ${edited.id}'s record claims the worktree .* too; nothing was changed\\.\n$`));
      assert.equal(existsSync(edited.worktree!), false, 'nothing was made there');
      const restored = cli(['restore', other.id, '--to', join(root, 'copy')], env);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(readFileSync(join(root, 'copy', 'mine.txt'), 'utf8'), 'b\n');
    });

    it('a worktree git has registered with another agent\'s branch (moved to this agent\'s path): cleanup refuses in one sentence and removes nothing', async () => {
      const mine = await finished(commitMine('a'));
      const other = await finished(commitMine('b'));
      // The other agent's worktree moved to where this agent's was: the record is as Paddock wrote it, git says whose it is.
      git(repo, 'worktree', 'remove', '--force', mine.worktree!);
      git(repo, 'worktree', 'move', other.worktree!, mine.worktree!);
      const before = stateOf(mine.worktree!, other.branch!);
      const mineTip = git(repo, 'rev-parse', `refs/heads/${mine.branch}`);
      for (const args of [['cleanup', mine.id, '--yes'], ['cleanup', mine.id, '--yes', '--delete-branch']]) {
        const refused = cli(args, env);
        assert.equal(refused.code, 1, refused.stderr);
        assert.match(refused.stderr, new RegExp(`^paddock cleanup: Cleanup of agent ${mine.id} is incomplete at terminating: Will not clean up agent ${mine.id}: git has .* checked out on ${other.branch}, the branch of agent ${other.id}, whose worktree it is; it is left as it is; `));
      }
      assert.deepEqual(stateOf(mine.worktree!, other.branch!), before, "the other agent's worktree, branch and registration are as they were");
      assert.equal(git(repo, 'rev-parse', `refs/heads/${mine.branch}`), mineTip, "this agent's branch is kept");
      // A failed stage, not a refusal before the record: an automatic retry backs off instead of trying again at once.
      const cleanup = JSON.parse(cli(['show', mine.id, '--json'], env).stdout).cleanup;
      assert.equal(cleanup.phase, 'incomplete');
      assert.ok(Date.parse(cleanup.nextAttemptAt) > Date.now(), 'the next attempt is backed off');
      assert.equal(cleanup.stage, 'terminating', 'refused before the capture');
    });

    it("an agent's worktree on a branch named like an agent's that no live agent has (its own, a cleaned agent's kept one) cleans up", async () => {
      const cleaned = await finished(commitMine('a'));
      const kept = cli(['cleanup', cleaned.id, '--yes'], env);
      assert.equal(kept.code, 0, kept.stderr);
      assert.ok(git(repo, 'rev-parse', `refs/heads/${cleaned.branch}`), "the cleaned agent's unmerged branch is kept");
      const onKept = await finished(`git checkout -q ${cleaned.branch} && echo building-on > b.txt`);
      const onOwn = await finished('git checkout -q -b paddock/feature1 && echo own > c.txt');
      for (const agent of [onKept, onOwn]) {
        const res = cli(['cleanup', agent.id, '--yes'], env);
        assert.equal(res.code, 0, res.stderr);
        assert.equal(existsSync(agent.worktree!), false);
      }
    });
  });

  describe('files that are not regular files (bug 45)', () => {
    // Each run is bounded: on a regression (a blocking open of a FIFO, a read of /dev/zero) it fails by timing out instead of hanging the suite.
    const BOUND_MS = 20_000;
    // SIGKILL: a process blocked in a synchronous open never runs the CLI's SIGTERM handler.
    const bounded = (args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: BOUND_MS, killSignal: 'SIGKILL' });
      assert.notEqual(r.status, null, `paddock ${args.join(' ')} did not finish within ${BOUND_MS} ms (hung): ${r.stderr.slice(0, 200)}`);
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    /** Runs `body` (JS, with `store` the compiled store module and `home`) in a child process, bounded. */
    const inChild = (body: string) => {
      const storeModule = join(__dirname, '..', '..', 'src', 'core', 'store', 'index.js');
      const script = `const store = require(${JSON.stringify(storeModule)}); const home = ${JSON.stringify(home)};\n(async () => { ${body} })().then(() => process.exit(0), (e) => { console.error(String(e)); process.exit(3); });`;
      const r = spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8', timeout: BOUND_MS, killSignal: 'SIGKILL' });
      assert.notEqual(r.status, null, `the child did not finish within ${BOUND_MS} ms (hung): ${r.stderr}`);
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const special: Record<string, (file: string) => void> = {
      FIFO: (file) => execFileSync('mkfifo', [file]),
      '/dev/zero': (file) => symlinkSync('/dev/zero', file),
    };

    it('a job.json that is a FIFO or a symlink to /dev/zero is unreadable; list (CLI and window path) returns promptly with the healthy one', async () => {
      const good = await cancelQueued(new JobStore({ home }), (await sample(home, 'good')).id, 'stopped before it started');
      const bad: Record<string, string> = {};
      for (const [kind, make] of Object.entries(special)) {
        const job = await sample(home, kind);
        const file = join(home, 'jobs', job.id, 'job.json');
        rmSync(file);
        make(file);
        bad[kind] = job.id;
      }
      const listed = bounded(['list', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout) as { id: string; title?: string; unreadable?: string }[];
      assert.equal(rows.find((r) => r.id === good.id)?.title, 'good');
      for (const [kind, id] of Object.entries(bad)) {
        assert.match(rows.find((r) => r.id === id)?.unreadable ?? '', /not a regular file/, kind);
        const shown = bounded(['show', id]);
        assert.equal(shown.code, 1, kind);
        assert.match(shown.stderr, new RegExp(`^paddock show: Agent ${id} is unreadable: it is not a regular file \\(a (FIFO|character device)\\)\\.\\n$`), kind);
      }
      // The window lists with asynchronous reads (readEntries.ts): the same there.
      const child = inChild(`const entries = await new store.JobStore({ home }).list(); console.log(JSON.stringify(entries.map((e) => ({ id: e.id, ok: e.ok, reason: e.reason }))));`);
      assert.equal(child.code, 0, child.stderr);
      const entries = JSON.parse(child.stdout) as { id: string; ok: boolean; reason?: string }[];
      assert.equal(entries.find((e) => e.id === good.id)?.ok, true);
      for (const id of Object.values(bad)) assert.match(entries.find((e) => e.id === id)?.reason ?? '', /not a regular file/);
      // Left as they are.
      assert.ok(lstatSync(join(home, 'jobs', bad.FIFO, 'job.json')).isFIFO());
      assert.equal(readlinkSync(join(home, 'jobs', bad['/dev/zero'], 'job.json')), '/dev/zero');
    });

    for (const [kind, make] of Object.entries(special)) {
      it(`usage caches (usage-cursor.json, usage-ended.json) as ${kind} are ignored: list and show return promptly`, async () => {
        const good = await cancelQueued(new JobStore({ home }), (await sample(home, 'good')).id, 'stopped before it started');
        make(join(home, 'jobs', good.id, 'usage-cursor.json'));
        make(join(home, 'usage-ended.json'));
        const listed = bounded(['list', '--json']);
        assert.equal(listed.code, 0, listed.stderr);
        assert.equal((JSON.parse(listed.stdout) as { id: string; title?: string }[]).find((r) => r.id === good.id)?.title, 'good');
        const shown = bounded(['show', good.id, '--json']);
        assert.equal(shown.code, 0, shown.stderr);
        // The caches' reader itself (a running agent's cursor is read through it), both forms: it refuses, and the caller rebuilds.
        const cacheModule = join(__dirname, '..', '..', 'src', 'core', 'usage', 'cacheFile.js');
        const file = join(home, 'jobs', good.id, 'usage-cursor.json');
        const child = inChild(
          `const c = require(${JSON.stringify(cacheModule)}); const out = [];` +
            `try { c.readSmallFileSync(${JSON.stringify(file)}, 32 * 1024 * 1024); out.push('read'); } catch (e) { out.push(e.code); }` +
            `try { await c.readSmallFile(${JSON.stringify(file)}, 32 * 1024 * 1024); out.push('read'); } catch (e) { out.push(e.code); }` +
            `console.log(out.join(','));`,
        );
        assert.equal(child.code, 0, child.stderr);
        assert.equal(child.stdout.trim(), 'ENOTREG,ENOTREG');
        assert.ok(lstatSync(file).isFIFO() || lstatSync(file).isSymbolicLink(), 'left as it is');
      });
    }

    it('changes/<id> as a FIFO: a record update completes (the signal is skipped) and the FIFO is left as it is', async () => {
      const job = await sample(home, 'signalled');
      const signal = join(home, 'changes', job.id);
      rmSync(signal, { force: true });
      execFileSync('mkfifo', [signal]);
      const child = inChild(`const s = new store.JobStore({ home }); await s.update(${JSON.stringify(job.id)}, (j) => ({ ...j, title: 'renamed' }));`);
      assert.equal(child.code, 0, child.stderr);
      assert.equal((await new JobStore({ home }).read(job.id)).title, 'renamed');
      assert.ok(lstatSync(signal).isFIFO());
    });

    it('a final screen or an output segment that is a FIFO: screen and logs fail in one sentence, promptly', async () => {
      const job = await cancelQueued(new JobStore({ home }), (await sample(home, 'ended')).id, 'stopped before it started');
      const dir = join(home, 'jobs', job.id);
      execFileSync('mkfifo', [join(dir, 'screen.txt')]);
      mkdirSync(join(dir, 'output'), { recursive: true });
      execFileSync('mkfifo', [join(dir, 'output', '000000000001.seg')]);
      for (const args of [['screen', job.id], ['logs', job.id]]) {
        const r = bounded(args);
        assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /is not a regular file \(a FIFO\); it was left as it is/);
      }
    });
  });

  const hostile = [
    '../outside',
    '../../victim.txt',
    '..',
    '.',
    '/etc/passwd',
    join('/tmp', 'x'),
    'abc/../../outside',
    'a'.repeat(5000),
    'ABCDEFGH',
    'abcdef\u202e',
    '%2e%2e%2f',
    '-rf',
  ];
  const commands: string[][] = [['show'], ['stop'], ['logs'], ['screen'], ['retry'], ['cleanup', '--yes'], ['attach'], ['send', '@ID', 'hi']];

  // Bug 49: `start --base no-such-ref` exited 1 and left a failed agent (its record) behind; bad input
  // is found before anything is created, in every command that takes a name from the person.
  it('bad input to start and the landing commands exits 2 in one sentence and creates nothing: no agent, worktree, branch or ref', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    git('tag', 'v1');
    const started = cli(['start', '--', 'true'], env, repo);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const refs = () => git('for-each-ref', '--format=%(refname) %(objectname)') + git('worktree', 'list', '--porcelain');
    // Wait for the agent to end, so that nothing it does changes the store between the two listings.
    for (let i = 0; i < 200 && !/"state": "completed"/.test(readFileSync(join(home, 'jobs', id, 'job.json'), 'utf8')); i++) spawnSync('sleep', ['0.05']);
    const before = { jobs: treeListing(join(home, 'jobs'), [join(home, 'jobs', id)]), refs: refs() };
    const cases: [string[], RegExp][] = [
      [['start', '--base', 'no-such-ref', '--', 'true'], /Base 'no-such-ref' is not a commit/],
      [['start', '--base', 'HEAD^{tree}', '--', 'true'], /is not a commit/],
      [['start', '--base', '', '--', 'true'], /not a valid git revision/],
      [['start', '--attempts', '3', '--base', 'no-such-ref', '--', 'true'], /Base 'no-such-ref' is not a commit/],
      [['start', '--repo', join(root, 'outside'), '--', 'true'], /is not inside a git repository/],
      [['start', '--repo', join(root, 'victim.txt'), '--', 'true'], /is a file, not a folder/],
      [['start', '--repo', join(root, 'nowhere'), '--', 'true'], /does not exist/],
      [['start', '--profile', 'no-such-profile'], /Unknown profile 'no-such-profile'/],
      [['start', '--attempts', '2', '--profile', 'shell', '--profile', 'no-such-profile'], /Unknown profile 'no-such-profile'/],
      [['start', '--', 'paddock-no-such-program'], /'paddock-no-such-program' is not on PATH/],
      [['start', '--attempts', '2', '--', 'paddock-no-such-program'], /'paddock-no-such-program' is not on PATH/],
      [['merge', id, '--into', 'no-such-branch'], /no branch 'no-such-branch'/],
      // Bug 61: the agent's own branch exited 1 ("already has every commit"); what is not a branch is said by what it is.
      [['merge', id, '--into', `paddock/${id}`], new RegExp(`cannot be landed on its own branch paddock/${id}; `)],
      [['merge', id, '--into', 'HEAD'], /--into takes a branch's name, not HEAD/],
      [['merge', id, '--into', 'v1'], /'v1' names a tag, not a local branch/],
      [['pr', id, '--remote', 'no-such-remote'], /no remote named 'no-such-remote'/],
      [['update', 'abcdef12'], /No agent abcdef12 exists/],
      [['compare', 'no-such-group'], /No group no-such-group exists/],
    ];
    for (const [args, said] of cases) {
      const r = cli(args, env, repo);
      assert.equal(r.code, 2, `paddock ${args.join(' ')} → ${r.code}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.match(r.stderr, said, args.join(' '));
    }
    assert.deepEqual(readdirSync(join(home, 'jobs')), [id], 'no agent was created');
    assert.deepEqual({ jobs: treeListing(join(home, 'jobs'), [join(home, 'jobs', id)]), refs: refs() }, before);
  });

  it('every command refuses every hostile id with exit 2 and one sentence; nothing outside the store is touched', async () => {
    const before = treeListing(root, [home]);
    const runs: string[][] = [];
    for (const c of commands) {
      // Every id through `show`; the sharpest three through every other command (each run costs a Node start).
      for (const id of c[0] === 'show' ? hostile : ['../outside', '/etc/passwd', 'a'.repeat(5000), '-rf']) {
        const args = c.includes('@ID') ? c.map((a) => (a === '@ID' ? id : a)) : [c[0], id, ...c.slice(1)];
        if (id === '-rf') args.splice(1, 0, '--');
        runs.push(args);
      }
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < runs.length) {
          const args = runs[next++];
          const r = await cliAsync(args, env);
          assert.equal(r.code, 2, `paddock ${args.join(' ').slice(0, 80)} → ${r.code}: ${r.stderr.slice(0, 200)}`);
          assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
          assert.doesNotMatch(r.stderr, /\n\s+at /);
        }
      }),
    );
    assert.deepEqual(treeListing(root, [home]), before);
    assert.equal(readFileSync(join(root, 'victim.txt'), 'utf8'), 'precious');
  });

  it('ids with a NUL byte (which no argv can carry) are refused by the commands and the store alike', async () => {
    const before = treeListing(root, [home]);
    for (const id of ['abcdef\u0000', 'abc\u0000/../../outside', '\u0000']) {
      for (const command of [showCommand, stopCommand, logsCommand]) {
        // main.ts turns a usage error into exit 2; in-process the command throws it.
        const outcome = await runCli(command, [id], env).then(
          (r) => `exit ${r.code}`,
          (err: PaddockError) => (err instanceof PaddockError && err.kind === 'usage' ? 'exit 2' : `threw ${String(err)}`),
        );
        assert.equal(outcome, 'exit 2', `${command.name} ${JSON.stringify(id)}`);
      }
      await assert.rejects(new JobStore({ home }).read(id), /is not a Paddock agent id/);
    }
    assert.deepEqual(treeListing(root, [home]), before);
  });

  describe('through the control socket', () => {
    let sb: Sandbox;
    afterEach(() => sb?.dispose());


    it('path-like, NUL-bearing and oversized tokens get an error frame and a closed connection; the agent goes on', async () => {
      sb = new Sandbox();
      const job = await sb.start(['sh', '-c', 'stty raw -echo; cat > /dev/null']);
      const exec = (await sb.store.read(job.id)).execution!;
      const tokens = ['../../etc/passwd', `${exec.socketToken.slice(0, 5)}\u0000${exec.socketToken.slice(5)}`, '/'.repeat(300), 'x'.repeat(257), job.id];
      for (const token of tokens) {
        for (const type of ['hello', 'attach']) {
          const frame = type === 'hello' ? { type, token } : { type, token, cols: 80, rows: 24, readOnly: false };
          const got = await exchange(exec.socketPath, `${JSON.stringify(frame)}\n`);
          const lines = got.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message: string; fatal: boolean });
          assert.equal(lines.length, 1, got);
          assert.equal(lines[0].type, 'error');
          assert.equal(lines[0].fatal, true);
          assert.ok(!got.includes(exec.socketToken), 'the real token is never echoed');
          if (token.length > 20) assert.ok(!got.includes(token), 'the offered token is not echoed');
        }
      }
      const rec = await sb.store.read(job.id);
      assert.equal(rec.lifecycle.state, 'running');
      assert.equal(rec.execution?.socketToken, exec.socketToken);
    });
  });
});
