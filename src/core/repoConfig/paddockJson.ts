/**
 * The repository's own configuration, `.paddock.json` at the repository root
 * (committed by the team): worktree setup (issue 13) and the check command
 * (issue 14). Validated with zod; a file that does not parse is reported, never
 * half-used. Commands from it run only when trusted (see `trust.ts`, issue 13).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as z from 'zod';
import { PaddockError } from '../common/errors';

export const PADDOCK_JSON = '.paddock.json';
/** Largest `.paddock.json` read: a configuration file, not data. */
const MAX_BYTES = 256 * 1024;

const Glob = z.string().min(1).max(1024);
const Command = z.string().min(1).max(8192);

export const RepoConfigSchema = z
  .object({
    $schema: z.string().max(2048).optional(),
    /** Globs of git-ignored files copied into each new worktree. */
    copy: z.array(Glob).max(200).optional(),
    /** Globs symlinked into each new worktree instead of copied. */
    link: z.array(Glob).max(200).optional(),
    /** Run in the worktree before the agent starts. */
    setup: Command.optional(),
    setupTimeoutSeconds: z.number().int().min(1).max(86_400).optional(),
    /** Run in the worktree before cleanup captures evidence. */
    teardown: Command.optional(),
    /** How many ports each agent gets. */
    ports: z.number().int().min(0).max(64).optional(),
    /** The repository's check command, run in an attempt's worktree (`npm test`). */
    check: Command.optional(),
  })
  .strict();
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
 */
export async function readRepoConfig(repo: string): Promise<RepoConfigFile | null> {
  const file = path.join(repo, PADDOCK_JSON);
  let content: string;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new PaddockError(`${file} is not a file.`, 'failed');
    if (stat.size > MAX_BYTES) throw new PaddockError(`${file} is larger than ${MAX_BYTES / 1024} KiB.`, 'failed');
    content = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
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
