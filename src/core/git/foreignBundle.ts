/**
 * The commits only a worktree of ANOTHER repository knows (foreignWorktrees.ts), written as a git
 * bundle into the job's evidence folder, in Paddock's store: nothing is written into the person's
 * repository nor into the other one. An earlier design fetched them into the person's repository,
 * which copied a shallow repository's commits without their parents (a corrupt repository: `git
 * fsck` and every `gc` fail), needed upload-pack settings that git drops before a local fetch under
 * protocol v0/v1, could start a gc there, and copied the other repository's whole history.
 *
 * The bundle holds only what that repository's local branches and tags do not reach: its
 * prerequisites (`needs`) are commits those keep, which the other repository must still have to take
 * it back, and the person is told so. Not its remote-tracking refs: a `fetch --prune` drops those
 * with no gc in sight, and a bundle built on them would no longer verify. A shallow repository's
 * bundle works the same way (its prerequisites are commits it has; a line reaching its graft fails
 * to bundle and stops for consent). `git bundle create` takes only ref names, so it runs in a scratch
 * repository that borrows the other one's objects (alternates, through a symlink of a plain name:
 * git reads that file without unquoting, so a newline in the path would break it) and names the
 * tips there. The bundle is then verified against the other repository before anything goes.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { firstLine, GIT_BULK_TIMEOUT_MS, NO_HOOKS, READ_ONLY_GIT, runGit } from './runGit';
import { NO_AUTO_MAINTENANCE } from './scopedConfig';

/** The ref each tip has in the bundle: `refs/paddock/kept/<n>`. */
export const BUNDLE_REF_PREFIX = 'refs/paddock/kept/';

/** `needs`: the commits of the other repository the bundle is built on (its prerequisites). */
export type BundleOutcome = { ok: true; count: number; needs: string[] } | { ok: false; why: string };

/**
 * Writes `file` holding `tips` and what only they reach in the repository of the checkout
 * `checkout`; `scratch` is a folder the caller removes. Never writes in that repository.
 */
export async function writeForeignBundle(checkout: string, tips: readonly string[], file: string, scratch: string): Promise<BundleOutcome> {
  const read = { cwd: checkout, env: READ_ONLY_GIT, allowFailure: true, config: NO_AUTO_MAINTENANCE } as const;
  const [format, objects] = await Promise.all([runGit(['rev-parse', '--show-object-format'], read), runGit(['rev-parse', '--git-path', 'objects'], read)]);
  if (format.code !== 0 || objects.code !== 0) return { ok: false, why: firstLine(format.stderr || objects.stderr) || 'it cannot be read' };
  const listed = await runGit(['rev-list', '--boundary', ...tips, '--not', '--branches', '--tags'], { ...read, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (listed.code !== 0) return { ok: false, why: firstLine(listed.stderr) || `rev-list exit code ${listed.code}` };
  const lines = listed.stdout.split('\n').filter((l) => l !== '');
  const boundary = lines.filter((l) => l.startsWith('-')).map((l) => l.slice(1));
  const count = lines.length - boundary.length;
  if (count === 0) return { ok: true, count: 0, needs: [] };

  const borrow = path.join(scratch, `bundle-${path.basename(file)}.git`);
  // No hooks: a global core.hooksPath reaches this scratch repository too, and one refusing refs/paddock/* failed the bundle (bug 105).
  const inBorrow = { cwd: borrow, allowFailure: true, config: { ...NO_AUTO_MAINTENANCE, ...NO_HOOKS } } as const;
  const init = await runGit(['-c', 'init.templateDir=', 'init', '-q', '--bare', `--object-format=${format.stdout.trim()}`, borrow], { cwd: scratch, allowFailure: true });
  if (init.code !== 0) return { ok: false, why: firstLine(init.stderr) || 'no scratch repository' };
  // Relative to the scratch repository's objects folder: `../borrowed` is its sibling, the symlink.
  await fs.symlink(path.resolve(checkout, objects.stdout.trim()), path.join(borrow, 'borrowed'));
  await fs.writeFile(path.join(borrow, 'objects', 'info', 'alternates'), '../borrowed\n');
  const refs = tips.map((sha, i) => `update ${BUNDLE_REF_PREFIX}${i} ${sha}\n`).join('');
  const named = await runGit(['update-ref', '--stdin'], { ...inBorrow, input: refs });
  if (named.code !== 0) return { ok: false, why: firstLine(named.stderr) || 'the commits cannot be named' };
  const revs = [...tips.map((_, i) => `${BUNDLE_REF_PREFIX}${i}`), ...boundary.map((b) => `^${b}`)].join('\n') + '\n';
  const made = await runGit(['bundle', 'create', '-q', file, '--stdin'], { ...inBorrow, input: revs, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (made.code !== 0) return { ok: false, why: firstLine(made.stderr) || `bundle exit code ${made.code}` };
  const why = await verifyForeignBundle(checkout, file, tips);
  return why === null ? { ok: true, count, needs: boundary } : { ok: false, why };
}

/** Null when the other repository can take the bundle back (its prerequisites are there) and it names every tip; else why not. */
export async function verifyForeignBundle(checkout: string, file: string, tips: readonly string[]): Promise<string | null> {
  const verify = await runGit(['bundle', 'verify', '-q', file], { cwd: checkout, env: READ_ONLY_GIT, allowFailure: true, timeoutMs: GIT_BULK_TIMEOUT_MS });
  if (verify.code !== 0) return `its bundle does not verify (${firstLine(verify.stderr) || `exit code ${verify.code}`})`;
  const heads = await runGit(['bundle', 'list-heads', file], { cwd: checkout, env: READ_ONLY_GIT, allowFailure: true });
  const have = new Set(heads.stdout.split('\n').map((l) => l.split(' ')[0]));
  const missing = tips.filter((t) => !have.has(t));
  return heads.code === 0 && missing.length === 0 ? null : `its bundle lacks ${missing.length || tips.length} commit(s)`;
}
