/**
 * What the cleanup fault suites share (issue 11): a run of the real CLI on one store and
 * repository, an agent started with `paddock start -- sh -c SCRIPT` and waited for, cleanup and
 * restore through the CLI, the round trip's comparison, and the store's secret check.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { git } from '../unit/core/coordinator/coordinatorFixture';
import { assertSameState, treeState, type State } from '../unit/core/git/treeState';
import { sleep } from '../unit/core/worker/fixtures';
import { allFileContents, type CliResult } from './faultKit';

export const KEY = 'sk-ant-api03-cleanupKey0123456789abcdef';
export const TOKEN = 'cleanup-foo-token-5e1d7a';
export const IGNORES = '.env\nbuild/\nnode_modules/\nignored/\n';

export interface Run {
  run(args: string[]): CliResult;
  home: string;
  repo: string;
  root: string;
}

/** The agent's whole record as `paddock show ID --json` prints it. */
export function show(r: Run, id: string): { worktree: string; cleanup: Record<string, unknown> | null; evidence: { summary: Record<string, unknown> } | null; lifecycle: { state: string } } {
  const res = r.run(['show', id, '--json']);
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout);
}

/** Starts `sh -c script` as an agent with the real CLI and waits until it has ended. */
export async function agent(r: Run, script: string): Promise<{ id: string; worktree: string }> {
  const res = r.run(['start', '--repo', r.repo, '--', 'sh', '-c', script]);
  assert.equal(res.code, 0, res.stderr);
  const id = res.stdout.trim();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = show(r, id);
    if (job.lifecycle.state === 'completed') return { id, worktree: job.worktree };
    assert.notEqual(job.lifecycle.state, 'failed', `the agent failed: ${JSON.stringify(job.lifecycle)}`);
    if (Date.now() > deadline) assert.fail(`the agent did not end: ${job.lifecycle.state}`);
    await sleep(100);
  }
}

export function cleanupOk(r: Run, id: string, ...args: string[]): void {
  const res = r.run(['cleanup', id, '--yes', ...args]);
  assert.equal(res.code, 0, `cleanup: ${res.stderr}`);
}

/** `paddock restore ID --to DIR`; returns DIR. */
export function restore(r: Run, id: string, name = `restored-${id}`): string {
  const to = join(r.root, name);
  const res = r.run(['restore', id, '--to', to]);
  assert.equal(res.code, 0, `restore: ${res.stderr}`);
  return to;
}

/** Cleanup, then restore: the restored tree equals `before` (the worktree's state just before cleanup). */
export function roundTrip(r: Run, id: string, before: State, skip?: (rel: string) => boolean, ...args: string[]): string {
  cleanupOk(r, id, ...args);
  const to = restore(r, id);
  assertSameState(treeState(to, skip), before);
  assertNoSecretInStore(r.home);
  return to;
}

export function assertNoSecretInStore(home: string): void {
  const files = allFileContents(home);
  assert.ok(files.length > 3, 'the store has files to check');
  for (const { path, text } of files) for (const secret of [KEY, TOKEN]) assert.ok(!text.includes(secret), `${path} holds a secret in clear`);
}

/** git as the test's user on a repository another user may own (the permission cases run as nobody). */
export function anyGit(cwd: string, ...args: string[]): string {
  return git(cwd, '-c', 'safe.directory=*', ...args);
}

export function isWorktreeOf(repo: string, worktree: string): boolean {
  return anyGit(repo, 'worktree', 'list', '--porcelain').split('\n').includes(`worktree ${worktree}`);
}
