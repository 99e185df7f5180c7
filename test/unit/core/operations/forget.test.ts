/**
 * A create that dies between claiming its id and committing its record leaves a job folder without
 * a record. Nothing ever ran for it, so a leading window's pass removes it (and `paddock forget`
 * does on request) — but never a folder whose creator is alive, one still young, or one holding
 * more than a create makes (a record lost some other way).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { jobLock } from '../../../../src/core/operations/context';
import { CoordinatorSandbox, requireBuild, runCli, assertOneSentence, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

/** No periodic pass in these tests: only the first pass and explicit ticks. */
const NO_TICK_MS = 600_000;
const HOUR_AGO = new Date(Date.now() - 3_600_000);

/** Every creator a test spawned, killed after it whatever happened. */
const creators: ChildProcess[] = [];

/** A process that creates a job the way `start` does, and stops in its `beforeRecord` hook, holding the job's lock. */
async function createStoppedBeforeRecord(home: string): Promise<{ child: ChildProcess; id: string }> {
  const storeModule = resolve(__dirname, '../../../../src/core/store/index.js');
  const contextModule = resolve(__dirname, '../../../../src/core/operations/context.js');
  const script = `
    const { JobStore } = require(${JSON.stringify(storeModule)});
    const { acquireJobLock } = require(${JSON.stringify(contextModule)});
    const store = new JobStore({ home: ${JSON.stringify(home)} });
    setInterval(() => {}, 1000);
    store.create({}, async (id) => {
      await acquireJobLock(store, id);
      process.stdout.write(id + '\\n');
      await new Promise(() => {});
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  creators.push(child);
  const id = await new Promise<string>((done) => child.stdout!.once('data', (d) => done(String(d).trim())));
  return { child, id };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

describe('interrupted creates: removed when nothing can have run for them, kept otherwise', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));
  before(requireBuild);
  afterEach(async () => {
    await Promise.all(creators.splice(0).map(kill));
  });

  const jobDir = (id: string) => sb.store.jobDir(id);
  const age = (id: string) => fs.utimesSync(jobDir(id), HOUR_AGO, HOUR_AGO);

  it('a leading window removes the folder and lock of a create killed before its record, and nothing else', async () => {
    const good = await sb.createQueued('good');
    await sb.store.transition(good.id, 'cancelled');
    const { child, id } = await createStoppedBeforeRecord(sb.home);
    await kill(child);
    // What a kill a moment later leaves as well: the empty output and evidence folders and the record's temp file.
    fs.mkdirSync(join(jobDir(id), 'output'));
    fs.mkdirSync(join(jobDir(id), 'evidence'));
    fs.writeFileSync(join(jobDir(id), `.tmp-job.json.${child.pid}.0a1b2c3d`), '{"partial":');
    age(id);
    assert.ok(fs.existsSync(jobLock(sb.store, id).lockDir), 'the dead creator left its lock');
    const listed = (await sb.store.list()).find((e) => e.id === id);
    assert.deepEqual(listed, { id, ok: false, reason: 'it has no record (its creation was interrupted)', interruptedCreate: true });

    const logged: string[] = [];
    const leader = sb.coordinator({}, { tickMs: NO_TICK_MS, log: (m) => logged.push(m) });
    await leader.ready;
    assert.equal(leader.isLeader, true);
    assert.equal(fs.existsSync(jobDir(id)), false, 'the folder is gone');
    assert.equal(fs.existsSync(jobLock(sb.store, id).lockDir), false, 'the lock is gone');
    assert.ok(logged.some((m) => m.includes(`agent ${id}: removed the folder of a creation interrupted before its record`)), logged.join('\n'));
    assert.deepEqual((await sb.store.list()).map((e) => e.id), [good.id]);
    assert.equal((await sb.store.read(good.id)).lifecycle.state, 'cancelled');
  });

  it('a creator killed while a window leads: its folder goes within seconds, with nothing else in the store changing', async () => {
    const { child, id } = await createStoppedBeforeRecord(sb.home);
    age(id);
    const leader = sb.coordinator({}, { tickMs: NO_TICK_MS });
    await leader.ready;
    assert.equal(leader.isLeader, true);
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(fs.existsSync(jobDir(id)), 'kept while its creator lives');

    await kill(child);
    const deadline = Date.now() + 10_000;
    while (fs.existsSync(jobDir(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(fs.existsSync(jobDir(id)), false, 'the folder of the dead creator is still there 10 s later');
  });

  it('keeps a folder with more than a create makes, a young one and one whose creator lives; forget removes only what the pass would', async () => {
    // A record lost some other way: the job had a timeline.
    const { child: first, id: foreign } = await createStoppedBeforeRecord(sb.home);
    await kill(first);
    fs.writeFileSync(join(jobDir(foreign), 'timeline.jsonl'), '{"type":"created"}\n');
    age(foreign);
    // Young: its creator may be between the id claim and taking the lock.
    fs.mkdirSync(join(sb.home, 'jobs', 'young0001'), { mode: 0o700 });
    // Old, but its creator is alive and holds the lock.
    const { child: live, id: creating } = await createStoppedBeforeRecord(sb.home);
    age(creating);

    const logged: string[] = [];
    const leader = sb.coordinator({}, { tickMs: NO_TICK_MS, log: (m) => logged.push(m) });
    await leader.ready;
    await leader.tick();
    for (const id of [foreign, 'young0001', creating]) assert.ok(fs.existsSync(jobDir(id)), `${id} is kept`);
    assert.ok(fs.existsSync(join(jobDir(foreign), 'timeline.jsonl')));
    const keptNotes = logged.filter((m) => m.includes(`Agent ${foreign} has no record but holds timeline.jsonl`));
    assert.equal(keptNotes.length, 1, `logged once: ${logged.join('\n')}`);

    await assert.rejects(leader.forget(foreign), /has no record but holds timeline\.jsonl: it is left on disk/);
    await assert.rejects(leader.forget('young0001'), /is still being created; try again in a moment/);
    assert.ok(fs.existsSync(jobDir(foreign)) && fs.existsSync(jobDir('young0001')));

    // Its creator gone, `paddock forget` removes it: the CLI's one door is the same operation.
    await kill(live);
    const run = await runCli(['forget', creating], { cwd: sb.repo, env: sb.env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `Removed agent ${creating} from the list.\n`);
    assert.equal(fs.existsSync(jobDir(creating)), false);
    const refused = await runCli(['forget', foreign], { cwd: sb.repo, env: sb.env });
    assert.equal(refused.code, 1);
    assertOneSentence(refused.stderr);
    assert.ok(fs.existsSync(join(jobDir(foreign), 'timeline.jsonl')), 'a refused forget touches nothing');
  });

  it('a removal killed half-way leaves nothing that lists, and a leading window finishes it', async function () {
    this.timeout(120_000);
    const doomed = await sb.createQueued('to be forgotten');
    await sb.store.transition(doomed.id, 'cancelled');
    // Enough files that removing them takes a while: the remover is killed in the middle.
    for (let d = 0; d < 40; d++) {
      const dir = join(jobDir(doomed.id), 'output', `d${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 500; f++) fs.writeFileSync(join(dir, `f${f}`), 'x');
    }
    const forgetModule = resolve(__dirname, '../../../../src/core/store/forgetRecord.js');
    const remover = spawn(process.execPath, ['-e', `require(${JSON.stringify(forgetModule)}).removeJobFolder(${JSON.stringify(sb.home)}, ${JSON.stringify(doomed.id)})`], { stdio: 'ignore' });
    creators.push(remover);
    const jobsDir = join(sb.home, 'jobs');
    // Killed as soon as the record is no longer where it was: the removal has begun.
    const recordFile = join(jobDir(doomed.id), 'job.json');
    while (fs.existsSync(recordFile) && remover.exitCode === null) await new Promise((r) => setImmediate(r));
    await kill(remover);

    // Nothing lists: the agent is simply gone. (The old order, record first, left a folder under its
    // id without a record: after the create grace it listed as unreadable, forever.)
    assert.equal(fs.existsSync(jobDir(doomed.id)), false, 'no folder is left under its id');
    assert.deepEqual(await sb.store.list(), []);
    await assert.rejects(sb.store.read(doomed.id), /No agent .* exists/);
    const leftover = fs.readdirSync(jobsDir).find((n) => n.startsWith('.removing-'));
    assert.ok(leftover, 'the remover was killed while it removed the folder');
    assert.ok(fs.readdirSync(join(jobsDir, leftover), { recursive: true }).length > 0, 'part of it is left');

    const aged = new Date(Date.now() - 120_000);
    fs.utimesSync(join(jobsDir, leftover), aged, aged);
    const logged: string[] = [];
    const leader = sb.coordinator({}, { tickMs: NO_TICK_MS, log: (m) => logged.push(m) });
    await leader.ready;
    assert.equal(fs.existsSync(join(jobsDir, leftover)), false, 'swept at the first pass it leads');
    assert.ok(logged.some((m) => m.includes(`removed what was left of the folders of ${doomed.id}`)), logged.join('\n'));
  });
});
