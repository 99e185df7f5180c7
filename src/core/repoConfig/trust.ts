/**
 * Which `.paddock.json` files may run their commands (setup, teardown, check)
 * from outside a trusted VS Code workspace: the person allowed that file's exact
 * content once (`paddock allow`, the way direnv does). A changed file is no
 * longer allowed. The allow list lives in the store (`trusted-configs.json`),
 * keyed by the file's absolute path, holding the sha256 of the content allowed.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as z from '../common/zod';
import { DEFAULT_LOCK_OPTIONS, withLock } from '../store/locks';
import { ensureDir, writeFileDurable } from '../store/durable';
import { readRegularText } from '../store/regularFile';
import type { RepoConfigFile } from './paddockJson';

export const TRUST_FILE = 'trusted-configs.json';
/** Largest allow list read: thousands of entries; past it (or /dev/zero linked in its place) it allows nothing. */
const MAX_TRUST_BYTES = 4 * 1024 * 1024;

const TrustListSchema = z.object({
  allowed: z.record(z.string().check(z.minLength(1), z.maxLength(4096)), z.object({ sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)), at: z.string().check(z.maxLength(64)) })),
});
type TrustList = z.infer<typeof TrustListSchema>;

export function contentDigest(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

export class RepoConfigTrust {
  private readonly file: string;

  constructor(private readonly home: string) {
    this.file = path.join(home, TRUST_FILE);
  }

  /** True when this exact content of this file was allowed. An unreadable list allows nothing. */
  async isAllowed(config: RepoConfigFile): Promise<boolean> {
    const list = await this.read();
    return list.allowed[config.path]?.sha256 === contentDigest(config.content);
  }

  /** True when another content of this file was allowed (it changed since): the refusal says so. */
  async wasAllowedBefore(config: RepoConfigFile): Promise<boolean> {
    const entry = (await this.read()).allowed[config.path];
    return entry !== undefined && entry.sha256 !== contentDigest(config.content);
  }

  /** Allows this exact content of this file (replacing what was allowed for it before). */
  async allow(config: RepoConfigFile, now: Date = new Date()): Promise<void> {
    ensureDir(this.home);
    await withLock(`${this.file}.lock`, 'the trusted configuration list', DEFAULT_LOCK_OPTIONS, async (guard) => {
      const list = await this.read();
      list.allowed[config.path] = { sha256: contentDigest(config.content), at: now.toISOString() };
      guard.assertHeld();
      await writeFileDurable(this.file, `${JSON.stringify(list, null, 2)}\n`);
    });
  }

  private async read(): Promise<TrustList> {
    try {
      // A store file like the others (bug 45): a FIFO in its place must not hang a start, nor /dev/zero fill memory.
      const text = await readRegularText(this.file, MAX_TRUST_BYTES);
      if (text === null) return { allowed: {} };
      const parsed = TrustListSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : { allowed: {} };
    } catch {
      return { allowed: {} };
    }
  }
}
