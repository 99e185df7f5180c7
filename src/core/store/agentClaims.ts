/**
 * What a job record may claim as its own: the names Paddock gives an agent's
 * worktree, branch, control socket, snapshot ref and inventory, all derived
 * from its id, and the rule that a record claims nothing else (bug 48). Cleanup
 * removes the worktree and deletes the branch a record names (and judges a
 * half-removed one by its inventory), a client connects to its socket, prune
 * deletes its snapshot ref: a record edited by hand (or damaged) to name
 * another agent's would point those at what is not the agent's. Such a record
 * does not pass the schema (recordSchemas.ts and the fast check
 * recordCheck.ts both ask `recordClaimProblem`), so it reads as unreadable with
 * the reason, and nothing acts on it.
 */
import * as path from 'node:path';
import { socketFileName } from '../protocol/runtimeDir';
import { EVIDENCE_DIR, INVENTORY_FILE, JOBS_DIR } from './paths';
import { JOB_ID_PATTERN } from './schema';

/** `<repo-parent>/<repo-name>.worktrees/<id>`, or `<worktreeRoot>/<repo-name>/<id>` when the setting is given. */
export function worktreePathFor(repo: string, id: string, worktreeRoot: string | null): string {
  const name = path.basename(repo);
  if (worktreeRoot) return path.join(path.resolve(worktreeRoot), name, id);
  return path.join(path.dirname(repo), `${name}.worktrees`, id);
}

export function branchNameFor(id: string): string {
  return `paddock/${id}`;
}

/** Where an agent's capture keeps its work (git/evidence.ts writes it, restore reads it, prune may delete it). */
export const SNAPSHOT_NAMESPACE = 'refs/paddock/snapshots/';
export function snapshotRefFor(id: string): string {
  return `${SNAPSHOT_NAMESPACE}${id}`;
}

/** A branch named as Paddock names an agent's (`paddock/<id>`), whichever agent's it is. */
export function isAgentBranch(value: string): boolean {
  return value.startsWith('paddock/') && JOB_ID_PATTERN.test(value.slice('paddock/'.length));
}

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * An absolute path with nothing to resolve: no `.`/`..` parts, no doubled or trailing slash (what
 * `path.normalize` leaves as it is). Read part by part: a listing asks this of every record's paths,
 * and `path.normalize` walks each character in interpreted code (1,000 records: ~4 ms).
 */
function isPlainAbsolute(p: string): boolean {
  if (p === '/') return true;
  if (p.charCodeAt(0) !== SLASH) return false;
  for (let start = 1; ; ) {
    const slash = p.indexOf('/', start);
    const end = slash === -1 ? p.length : slash;
    const length = end - start;
    if (length === 0) return false;
    if (length <= 2 && p.charCodeAt(start) === DOT && (length === 1 || p.charCodeAt(start + 1) === DOT)) return false;
    if (slash === -1) return true;
    start = slash + 1;
  }
}

/** The last part of a plain absolute path (see isPlainAbsolute), and the path before it. */
function lastPart(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
function parentOf(p: string): string {
  const slash = p.lastIndexOf('/');
  return slash === 0 ? '/' : p.slice(0, slash);
}

/**
 * Whether `worktree` is a folder Paddock would have made for agent `id` of `repo`: named after the id,
 * in `<repo-name>.worktrees` beside the repository, or in a `<repo-name>` folder (the `worktreeRoot`
 * setting, which is not on the record). A restore elsewhere (`--to`) is a copy the record never names.
 */
function worktreeProblem(id: string, repo: string, worktree: string): string | null {
  if (!isPlainAbsolute(worktree)) return `'${worktree}' is not an absolute, normalized path`;
  const name = path.basename(repo);
  const parent = parentOf(worktree);
  if (lastPart(worktree) !== id) return `'${worktree}' is not a worktree Paddock made for agent ${id}`;
  if (lastPart(parent) === name || parent === besideRepoFolder(repo, name)) return null;
  return `'${worktree}' is not a worktree Paddock made for agent ${id}`;
}

/** `<repo-parent>/<repo-name>.worktrees`; without `path.join` when the repository's path is plain already. */
function besideRepoFolder(repo: string, name: string): string {
  if (!isPlainAbsolute(repo) || repo === '/') return path.join(path.dirname(repo), `${name}.worktrees`);
  const parent = parentOf(repo);
  return parent === '/' ? `/${name}.worktrees` : `${parent}/${name}.worktrees`;
}

/** The parts of a record the claims are judged on (typed loosely: zod calls this before its output is typed). */
export interface ClaimingRecord {
  id: string;
  repo: string;
  worktree: string | null;
  branch: string | null;
  execution: { generation: number; socketPath: string } | null;
  evidence: { snapshotRef: string | null; inventory?: string | null } | null;
}

/** The inventory cleanup judges a half-removed worktree by (cleanupRemoval.ts): the one in this agent's own job folder. */
function isOwnInventory(id: string, inventory: string): boolean {
  return isPlainAbsolute(inventory) && inventory.endsWith(`/${JOBS_DIR}/${id}/${EVIDENCE_DIR}/${INVENTORY_FILE}`);
}

/**
 * The first thing `record` claims that is not its own, as `{ path, message }` (the path within the
 * record, as a schema issue says it); null when it claims only its own. One rule, asked by both
 * zod's schema and the fast check.
 */
export function recordClaimProblem(record: ClaimingRecord): { path: string[]; message: string } | null {
  const { id } = record;
  if (record.worktree !== null) {
    const problem = worktreeProblem(id, record.repo, record.worktree);
    if (problem) return { path: ['worktree'], message: problem };
  }
  if (record.branch !== null && record.branch !== branchNameFor(id)) {
    return { path: ['branch'], message: `'${record.branch}' is not agent ${id}'s branch (${branchNameFor(id)})` };
  }
  const exec = record.execution;
  if (exec !== null && (!isPlainAbsolute(exec.socketPath) || path.basename(exec.socketPath) !== socketFileName(id, exec.generation))) {
    return { path: ['execution', 'socketPath'], message: `'${exec.socketPath}' is not the control socket of agent ${id}'s execution ${exec.generation}` };
  }
  const ref = record.evidence?.snapshotRef ?? null;
  if (ref !== null && ref !== snapshotRefFor(id)) {
    return { path: ['evidence', 'snapshotRef'], message: `'${ref}' is not agent ${id}'s snapshot ref (${snapshotRefFor(id)})` };
  }
  const inventory = record.evidence?.inventory ?? null;
  if (inventory !== null && !isOwnInventory(id, inventory)) {
    return { path: ['evidence', 'inventory'], message: `'${inventory}' is not the inventory in agent ${id}'s own job folder` };
  }
  return null;
}

// Hours, minutes and seconds are bounded by the pattern itself; only the day needs its month. A list
// of 1,000 records asks this ~10,000 times: no match groups, no Date (measured 9 ms → under 2 ms).
const ISO_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const digits = (s: string, from: number, count: number) => {
  let n = 0;
  for (let i = from; i < from + count; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
};
/**
 * A real instant in ISO 8601 as `Date.prototype.toISOString` and the like write it
 * (`2026-12-03T09:00:00.000Z`, an offset allowed): dates are compared and added to (backoff,
 * prune's age, "2m ago"), and one that does not parse would make each of those NaN.
 */
export function isIsoTime(value: string): boolean {
  if (!ISO_TIME.test(value)) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}
