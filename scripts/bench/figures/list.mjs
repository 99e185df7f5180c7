// 6. List: `paddock list --json` over 1,000 jobs vs a bare Node script that
// reads and parses the same record files (and prints them as JSON). Both are
// fresh processes, as a person or a script runs them.
import { spawn } from 'node:child_process';
import { closeSync, cpSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, cliOk, cliPath, paddockEnv, sleep } from '../lib/env.mjs';
import { smallRepo } from '../lib/repo.mjs';

const BARE = `
const fs = require('fs'), path = require('path');
const dir = path.join(process.env.PADDOCK_HOME, 'jobs');
const jobs = [];
for (const id of fs.readdirSync(dir)) jobs.push(JSON.parse(fs.readFileSync(path.join(dir, id, 'job.json'), 'utf8')));
process.stdout.write(JSON.stringify(jobs, null, 2) + '\\n');
`;

function newId(i) {
  return `l${i.toString(36).padStart(5, '0')}${Math.random().toString(36).slice(2, 5)}`.replace(/[^a-z0-9]/g, 'x').slice(0, 12);
}

/** One real ended job, then 999 copies of its folder under new ids (ids inside rewritten). */
export async function seed(pe, count) {
  const repo = smallRepo('list');
  const id = (await cliOk(pe.env, ['start', '--repo', repo, '--title', 'a finished agent', '--', 'sh', '-c', 'echo done'])).stdout.trim();
  const deadline = Date.now() + 30_000;
  let endedAt;
  for (;;) {
    const job = JSON.parse((await cliOk(pe.env, ['show', id, '--json'])).stdout);
    if (job.lifecycle.state === 'completed') {
      endedAt = Date.parse(job.lifecycle.endedAt);
      break;
    }
    if (Date.now() > deadline) throw new Error(`seed job stuck in ${job.lifecycle.state}`);
    await sleep(200);
  }
  // The worker lingers briefly, then releases its claim; and the store's agents ended before the listing,
  // as a store's agents did (an end younger than 30 s is not settled: its figures are read afresh).
  await sleep(Math.max(2500, endedAt + 31_000 - Date.now()));
  const jobs = join(pe.home, 'jobs');
  const src = join(jobs, id);
  const files = readdirSync(src).filter((f) => f === 'job.json' || f === 'timeline.jsonl' || f === 'output');
  for (let i = 1; i < count; i++) {
    const nid = newId(i);
    const dst = join(jobs, nid);
    for (const f of files) cpSync(join(src, f), join(dst, f), { recursive: true });
    for (const f of ['job.json', 'timeline.jsonl']) {
      if (files.includes(f)) writeFileSync(join(dst, f), readFileSync(join(src, f), 'utf8').split(id).join(nid));
    }
  }
  return readdirSync(jobs).length;
}

/**
 * Runs node with args, stdout to a file, for both sides alike (a pipe's reader
 * would be timed too).
 */
function timedNode(args, env, outFile) {
  return new Promise((resolve, reject) => {
    const fd = openSync(outFile, 'w');
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.slice(0, 2).join(' ')} exited ${code}: ${err.trim()}`));
      else resolve(ms);
    });
  });
}

/** `paddock list --json` into a pipe: every byte arrives (it once lost its tail; kept as a check). */
async function pipeTruncation(env, fullBytesOfBare) {
  const p = await cli(env, ['list', '--json']);
  let parses = true;
  try {
    JSON.parse(p.stdout);
  } catch {
    parses = false;
  }
  return { pipedBytes: Buffer.byteLength(p.stdout), parses, bareFileBytes: fullBytesOfBare };
}

export async function list({ repeats, jobs }) {
  const pe = paddockEnv('list');
  const count = await seed(pe, jobs);
  // Every copy must be a valid record for the store.
  const outFile = join(pe.home, 'list.json');
  await timedNode([cliPath, 'list', '--json'], pe.env, outFile);
  const check = JSON.parse(readFileSync(outFile, 'utf8'));
  const bad = check.filter((e) => e.error || e.ok === false || !e.lifecycle);
  if (check.length !== count || bad.length) throw new Error(`list saw ${check.length} of ${count} jobs, ${bad.length} unreadable`);
  const out = { paddock: [], bare: [], jobs: count };
  for (let i = 0; i < repeats; i++) {
    out.paddock.push(await timedNode([cliPath, 'list', '--json'], pe.env, outFile));
    out.bare.push(await timedNode(['-e', BARE], pe.env, outFile));
  }
  out.pipeTruncated = await pipeTruncation(pe.env, readFileSync(outFile).length);
  return out;
}
