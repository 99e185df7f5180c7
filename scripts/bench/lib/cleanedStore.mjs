// A store of many agents, most of them cleaned long ago, as a person who has
// used Paddock for months has it. Built from two real records (one agent that
// ran and was cleaned up by `paddock cleanup`, one that ran and ended without
// cleanup), copied under new ids with distinct titles and times, so every copy
// is a record the real store wrote, not one this script made up.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliOk, sleep } from './env.mjs';

const HOUR_MS = 3_600_000;

async function waitFor(env, id, done, what) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = JSON.parse((await cliOk(env, ['show', id, '--json'])).stdout);
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`agent ${id} never ${what} (state ${job.lifecycle.state}, cleanup ${job.cleanup?.phase ?? 'none'})`);
    await sleep(200);
  }
}

async function endedAgent(env, repo, title) {
  const id = (await cliOk(env, ['start', '--repo', repo, '--title', title, '--', 'sh', '-c', 'echo done'])).stdout.trim();
  await waitFor(env, id, (j) => j.lifecycle.state === 'completed', 'completed');
  await sleep(2500); // the worker lingers briefly, then releases its claim
  return id;
}

function newId(prefix, i) {
  return `${prefix}${i.toString(36).padStart(6, '0')}`;
}

/**
 * Copies job `src`'s folder to a new id and rewrites its record with `edit`
 * (ids inside the record and its timeline rewritten too, as list.mjs's seed does).
 */
function copyJob(jobs, src, nid, edit) {
  const from = join(jobs, src);
  const to = join(jobs, nid);
  for (const f of src === nid ? [] : readdirSync(from)) {
    if (f === 'job.json' || f === 'timeline.jsonl' || f === 'output') cpSync(join(from, f), join(to, f), { recursive: true });
  }
  const timeline = join(to, 'timeline.jsonl');
  try {
    writeFileSync(timeline, readFileSync(timeline, 'utf8').split(src).join(nid));
  } catch {
    // no timeline in this record
  }
  const job = JSON.parse(readFileSync(join(from, 'job.json'), 'utf8').split(src).join(nid));
  edit(job);
  writeFileSync(join(to, 'job.json'), `${JSON.stringify(job, null, 2)}\n`);
}

/**
 * Fills `pe`'s store with `total` agents of `repo`: `shown` ended and not
 * cleaned (the rows the tree shows by default), the rest cleaned `cleanedHoursAgo`
 * hours ago and more (past `paddock.showCleanedFor`'s default 24 h, so hidden until
 * "Show Cleaned Agents"). Returns the counts and the ids of the two originals.
 */
export async function seedMostlyCleaned(pe, repo, { total, shown, cleanedHoursAgo = 48 }) {
  const cleanedId = await endedAgent(pe.env, repo, 'cleaned original');
  await cliOk(pe.env, ['cleanup', cleanedId, '--yes']);
  await waitFor(pe.env, cleanedId, (j) => j.cleanup?.phase === 'complete', 'finished its cleanup');
  const endedId = await endedAgent(pe.env, repo, 'ended original');
  const jobs = join(pe.home, 'jobs');
  const now = Date.now();
  const cleaned = total - shown;
  // The originals count too: one cleaned, one ended; each is rewritten below like its copies.
  for (let i = 0; i < cleaned; i++) {
    const at = (minutes) => new Date(now - cleanedHoursAgo * HOUR_MS - minutes * 60_000).toISOString();
    const edit = (job) => {
      job.title = `Cleaned task number ${i + 1}`;
      job.createdAt = at(i * 10 + 5);
      job.cleanup.updatedAt = at(i * 10);
      job.cleanup.requestedAt = at(i * 10 + 1);
    };
    if (i === 0) copyJob(jobs, cleanedId, cleanedId, edit);
    else copyJob(jobs, cleanedId, newId('c', i), edit);
  }
  for (let i = 0; i < shown; i++) {
    const edit = (job) => {
      job.title = `Ended task number ${i + 1}`;
      job.createdAt = new Date(now - (i + 1) * 60_000).toISOString();
    };
    if (i === 0) copyJob(jobs, endedId, endedId, edit);
    else copyJob(jobs, endedId, newId('e', i), edit);
  }
  const count = readdirSync(jobs).filter((d) => /^[a-z0-9]{6,12}$/.test(d)).length;
  if (count !== total) throw new Error(`seeded ${count} agents, wanted ${total}`);
  return { total, shown, cleaned, cleanedId, endedId };
}
