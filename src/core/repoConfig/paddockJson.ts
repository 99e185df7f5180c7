/**
 * The repository's own configuration, `.paddock.json` at the repository root
 * (committed by the team): worktree setup (issue 13) and the check command
 * (issue 14). Validated with zod; a file that does not parse is reported, never
 * half-used. Commands from it run only when trusted (see `trust.ts`, issue 13).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as z from '../common/zod';
import { PaddockError } from '../common/errors';
import { isWithin } from '../common/paths';
import { isNotRegularFile, readRegularFile } from '../store/regularFile';

export const PADDOCK_JSON = '.paddock.json';
/** Largest `.paddock.json` read: a configuration file, not data. */
const MAX_BYTES = 256 * 1024;

const Glob = z.string().check(z.minLength(1), z.maxLength(1024));
const Command = z.string().check(z.minLength(1), z.maxLength(8192));

export const RepoConfigSchema = z.strictObject({
  $schema: z.optional(z.string().check(z.maxLength(2048))),
  /** Globs of git-ignored files copied into each new worktree. */
  copy: z.optional(z.array(Glob).check(z.maxLength(200))),
  /** Globs symlinked into each new worktree instead of copied. */
  link: z.optional(z.array(Glob).check(z.maxLength(200))),
  /** Run in the worktree before the agent starts. */
  setup: z.optional(Command),
  setupTimeoutSeconds: z.optional(z.number().check(z.int(), z.gte(1), z.lte(86_400))),
  /** Run in the worktree before cleanup captures evidence. */
  teardown: z.optional(Command),
  /** How many ports each agent gets. */
  ports: z.optional(z.number().check(z.int(), z.gte(0), z.lte(64))),
  /** The repository's check command, run in an attempt's worktree (`npm test`). */
  check: z.optional(Command),
  /** How long a check may run before it is ended and recorded failed (default CHECK_TIMEOUT_SECONDS). */
  checkTimeoutSeconds: z.optional(z.number().check(z.int(), z.gte(1), z.lte(86_400))),
});
export type RepoConfig = z.infer<typeof RepoConfigSchema>;

export interface RepoConfigFile {
  /** Absolute path of the file. */
  path: string;
  /** Exact content read (what `paddock allow` trusts). */
  content: string;
  config: RepoConfig;
}

/**
 * Reads `<repo>/.paddock.json`; null when there is none. A file that is too
 * large, not JSON, or not of the documented shape fails with one sentence.
 * It is read only from inside the repository: a symlink in a cloned repository
 * leading to the person's files elsewhere (`~/.aws/credentials`,
 * `/proc/self/environ`) is refused unread — its content would be echoed by the
 * JSON error. A FIFO or device in its place is refused without blocking.
 */
export async function readRepoConfig(repo: string): Promise<RepoConfigFile | null> {
  const file = path.join(repo, PADDOCK_JSON);
  let bytes: Buffer | null;
  try {
    const [real, repoReal] = await Promise.all([fs.realpath(file), fs.realpath(repo)]);
    if (!isWithin(real, repoReal)) throw new PaddockError(`${file} leads outside the repository, so it was not read: Paddock reads its configuration only from inside ${repo}.`, 'failed');
    bytes = await readRegularFile(real, MAX_BYTES);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EISDIR' || isNotRegularFile(err)) throw new PaddockError(`${file} is not a file.`, 'failed');
    throw err;
  }
  if (bytes === null) throw new PaddockError(`${file} is larger than ${MAX_BYTES / 1024} KiB.`, 'failed');
  const content = bytes.toString('utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch (err) {
    throw new PaddockError(`${file} is not valid JSON: ${(err as Error).message}.`, 'failed');
  }
  const parsed = RepoConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the file';
    throw new PaddockError(`${file} is not a valid Paddock configuration: ${where}: ${issue?.message ?? 'invalid'}.`, 'failed');
  }
  return { path: file, content, config: parsed.data };
}
