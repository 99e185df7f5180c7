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
import { isNotRegularFile, notRegularReason, readRegularText } from '../store/regularFile';
import { failure } from '../common/errors';
import { AsideRefused, moveAside, putBack } from './trustAside';
import { fsFailureWords } from '../common/fsErrors';
import type { RepoConfigFile } from './paddockJson';

export const TRUST_FILE = 'trusted-configs.json';
/** Largest allow list read: thousands of entries; past it (or /dev/zero linked in its place) it allows nothing. */
const MAX_TRUST_BYTES = 4 * 1024 * 1024;

const TrustListSchema = z.object({
  allowed: z.record(z.string().check(z.minLength(1), z.maxLength(4096)), z.object({ sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)), at: z.string().check(z.maxLength(64)) })),
});
type TrustList = z.infer<typeof TrustListSchema>;

export type TrustVerdict = { kind: 'allowed' | 'changed' | 'not allowed' } | { kind: 'unreadable'; file: string; why: string };

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

  /**
   * What the list says of this file: this content allowed, another content allowed (it changed since),
   * or nothing; or that the list could not be read this time (too many open files, permission, an I/O
   * error), with why: that says nothing of what it allows, and allowing again would not help (`allow`
   * refuses to write over a list it could not read).
   */
  async verdict(config: RepoConfigFile): Promise<TrustVerdict> {
    const read = await this.readList();
    if (read.cannotRead !== undefined) return { kind: 'unreadable', file: this.file, why: read.cannotRead };
    const entry = read.list.allowed[config.path];
    if (entry === undefined) return { kind: 'not allowed' };
    return { kind: entry.sha256 === contentDigest(config.content) ? 'allowed' : 'changed' };
  }

  /** True when another content of this file was allowed (it changed since): the refusal says so. */
  async wasAllowedBefore(config: RepoConfigFile): Promise<boolean> {
    const entry = (await this.read()).allowed[config.path];
    return entry !== undefined && entry.sha256 !== contentDigest(config.content);
  }

  /**
   * Allows this exact content of this file (replacing what was allowed for it before). A list whose
   * contents are damaged is moved aside first, never written over: it holds the person's other allows.
   * A list that could not be read this time (too many open files, permission, an I/O error) may be
   * whole: nothing is allowed and it is left as it is. Returns the sentence saying what was kept, or undefined.
   */
  async allow(config: RepoConfigFile, now: Date = new Date()): Promise<string | undefined> {
    ensureDir(this.home);
    return withLock(`${this.file}.lock`, 'the trusted configuration list', DEFAULT_LOCK_OPTIONS, async (guard) => {
      const read = await this.readList();
      if (read.cannotRead !== undefined) throw failure(`The allow list ${this.file} cannot be read (${read.cannotRead}); nothing was allowed and it was left as it is.`);
      let aside: string | undefined;
      if (read.damaged) {
        guard.assertHeld();
        try {
          aside = await moveAside(this.file, now, read.damaged.folder);
        } catch (err) {
          const why = fsFailureWords(err instanceof AsideRefused ? err.reason : err);
          throw failure(`The allow list ${this.file} cannot be read (${read.damaged.why}) and could not be moved aside: ${why}; nothing was allowed and it was left as it is.`);
        }
      }
      const { list } = read;
      list.allowed[config.path] = { sha256: contentDigest(config.content), at: now.toISOString() };
      guard.assertHeld();
      try {
        await writeFileDurable(this.file, `${JSON.stringify(list, null, 2)}\n`);
      } catch (err) {
        throw failure(await this.notWritten(err, aside, read.damaged?.why));
      }
      return aside && `The earlier allow list could not be read (${read.damaged!.why}); it was kept as ${aside}, and the new list allows only this file.`;
    });
  }

  /** The sentence for a new list that could not be written: the one moved aside is put back, or named. */
  private async notWritten(err: unknown, aside: string | undefined, damage: string | undefined): Promise<string> {
    const start = `The allow list ${this.file} could not be written (${fsFailureWords(err)}); nothing was allowed`;
    if (aside === undefined || (await putBack(aside, this.file))) return `${start} and the list was left as it was.`;
    return `${start}; the earlier list, which could not be read (${damage}), is kept as ${aside}.`;
  }

  private async read(): Promise<TrustList> {
    return (await this.readList()).list;
  }

  /**
   * The list, or an empty one: none yet, one whose contents are damaged (with why, and whether a
   * folder stands in its place), or one that could not be read this time (with why). Only damage is
   * ever moved aside: EMFILE, EACCES, EIO, ESTALE… say nothing of the contents.
   */
  private async readList(): Promise<{ list: TrustList; damaged?: { why: string; folder: boolean }; cannotRead?: string }> {
    const damaged = (why: string, folder = false) => ({ list: { allowed: {} }, damaged: { why, folder } });
    let text: string | null;
    try {
      // A store file like the others (bug 45): a FIFO in its place must not hang a start, nor /dev/zero fill memory.
      text = await readRegularText(this.file, MAX_TRUST_BYTES);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { list: { allowed: {} } };
      if (isNotRegularFile(err)) return damaged(notRegularReason(err));
      if (code === 'EISDIR') return damaged(fsFailureWords(err), true);
      return { list: { allowed: {} }, cannotRead: fsFailureWords(err) };
    }
    if (text === null) return damaged('it is larger than 4 MiB');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return damaged('it is not valid JSON');
    }
    const parsed = TrustListSchema.safeParse(data);
    return parsed.success ? { list: parsed.data } : damaged('it is not a valid allow list');
  }
}
