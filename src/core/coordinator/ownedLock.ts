/**
 * A cross-process lock whose owner is a process identity (pid + start time +
 * boot id) plus a random token. The owner file is written whole in a folder of
 * the taker's own beside the lock (`<lock>.<token>.held`); the lock itself is a
 * symbolic link to that folder, made with symlink(2), which fails while anything
 * is at the lock's path and never replaces it. So the lock never exists without
 * its owner, and anyone can declare it free the moment its owner is gone (dead,
 * zombie, pid reused) instead of waiting for an mtime to go stale. The token
 * tells apart two owners in one process (two coordinators in one host).
 *
 * Taking over a dead owner's lock happens under a short-lived guard directory,
 * so two processes can never both remove-and-recreate it (the race
 * proper-lockfile's mtime takeover has).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from '../common/zod';
import { failure } from '../common/errors';
import { isThisProcess, type Liveness, livenessOf, ownIdentity, processTableSource, type StatSource } from '../proc/identity';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeDirs } from '../common/makeDirs';
import { isSuspended, SuspendedHolderWatch } from './suspendedHolder';
import { cannotTakeLock, errnoOf, unwritableOr } from './lockUnwritable';

const OwnerSchema = z.object({
  pid: z.number().check(z.int(), z.positive()),
  startTime: z.number().check(z.int(), z.nonnegative()),
  bootId: z.string().check(z.maxLength(64)),
  token: z.string().check(z.minLength(16), z.maxLength(64)),
  purpose: z.string().check(z.maxLength(200)),
  since: z.string().check(z.maxLength(64)),
});
export type LockOwner = z.infer<typeof OwnerSchema>;

const OWNER_FILE = 'owner.json';
/**
 * A lock without a readable owner file: an older Paddock's (a folder made first, its owner written
 * after, its maker killed between the two), or one whose owner file cannot be read. This old, it is
 * abandoned.
 */
const OWNERLESS_STALE_MS = 5_000;
/** The taker's folder holding its owner file, beside the lock: `<lock>.<token>.held`; the lock links to it. */
const HELD_SUFFIX = '.held';
/** A lock renamed away on its way out (release, takeover) before it and its folder are removed. */
const DISCARDED_SUFFIX = '.discarded';
/** The takeover guard is held, and a taker's folder lacks its owner file, a few milliseconds; older means its maker died. */
export const BRIEF_STEP_STALE_MS = 2_000;

export interface HeldLock {
  readonly path: string;
  readonly token: string;
  release(): Promise<void>;
}

async function readOwner(lockDir: string): Promise<LockOwner | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await fs.readFile(path.join(lockDir, OWNER_FILE), 'utf8');
  } catch (err) {
    return errnoOf(err) === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const parsed = OwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Judged from a process table read after the owner file was: an owner alive then had started before
 * it wrote the file, so it is in the table. Without blocking on the portable backend (a `ps` run per
 * judgment, at every pass and every retry, was a blocking one).
 */
async function livenessOfOwner(owner: LockOwner): Promise<Liveness | 'unknown'> {
  if (isThisProcess(owner)) return 'alive';
  // A look that failed (a \`ps\` that failed under load, bug 189) says nothing of the owner: the lock is
  // held as far as anyone can tell, and a waiter looks again next turn. Thrown, it ended a two-minute
  // wait at once and lost LOCK_TIMED_OUT. So does a judgment that threw (on /proc, an EMFILE read: bugs 207, 209).
  const stats = await Promise.resolve(processTableSource()).catch(() => undefined);
  const judged = (s: StatSource) => { try { return livenessOf(owner, s); } catch { return 'unknown' as const; } };
  return stats ? judged(stats) : 'unknown';
}

/** Judged gone only from a look that answered. */
const isGone = (liveness: Liveness | 'unknown') => liveness !== 'alive' && liveness !== 'unknown';

/** Of the path itself (a lock's link, not its folder). */
async function ageMs(p: string): Promise<number | undefined> {
  try {
    return Date.now() - (await fs.lstat(p)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * What is at a lock's path, read once: a link to a taker's folder (named with the taker's token, so it
 * tells one take from the next) and that folder's owner; an older Paddock's folder lock and its owner;
 * or nothing. `since`: when the link or folder was made.
 */
type Holder =
  | { kind: 'free' }
  | { kind: 'link'; folder: string; owner: LockOwner | 'missing' | 'unreadable'; since: number }
  | { kind: 'folder'; owner: LockOwner | 'missing' | 'unreadable'; since: number };

export class OwnedLock {
  constructor(
    readonly lockDir: string,
    private readonly purpose: string,
  ) {}

  /** Who holds the lock now, if anyone alive does (or might: a failed look keeps the holder). */
  async owner(): Promise<LockOwner | undefined> {
    return (await this.judgedOwner())?.owner;
  }

  /** The holder with how it was judged: 'unknown' when the look at the processes failed. */
  private async judgedOwner(): Promise<{ owner: LockOwner; liveness: 'alive' | 'unknown' } | undefined> {
    const holder = await this.holder();
    if (holder.kind === 'free' || typeof holder.owner === 'string') return undefined;
    const liveness = await livenessOfOwner(holder.owner);
    return liveness === 'alive' || liveness === 'unknown' ? { owner: holder.owner, liveness } : undefined;
  }

  /** Whether a taker would get the lock now: nobody holds it, or its holder is gone (the taker's own judgment, nothing written). */
  async isFree(): Promise<boolean> {
    const holder = await this.holder();
    return holder.kind === 'free' || (await this.abandoned(holder));
  }

  /**
   * `isFree` and `owner` in one read of the lock, judged against `stats` (a process table read once
   * for many locks: one `ps` on the portable backend, not one per lock and question).
   */
  async look(stats: StatSource): Promise<{ free: boolean; owner?: LockOwner }> {
    const holder = await this.holder();
    if (holder.kind === 'free') return { free: true };
    if (typeof holder.owner === 'string') return { free: await this.abandoned(holder) };
    return isThisProcess(holder.owner) || livenessOf(holder.owner, stats) === 'alive' ? { free: false, owner: holder.owner } : { free: true };
  }

  /** The holder its owner file names, alive or not: the caller judges it against processes it has read. */
  async recordedOwner(): Promise<LockOwner | undefined> {
    const holder = await this.holder();
    return holder.kind === 'free' || typeof holder.owner === 'string' ? undefined : holder.owner;
  }

  /** Whether `held` is still this lock's holder: its link is there (no owner file read, so no read error can say no). */
  async holds(held: HeldLock): Promise<boolean> {
    return (await this.linkedFolder()) === this.heldFolderName(held.token);
  }

  /** Whether anything is at the lock's path (a link, an older Paddock's folder). */
  private occupied(): Promise<boolean> {
    return fs.lstat(this.lockDir).then(
      () => true,
      () => false,
    );
  }

  /** The folder name the lock links to; undefined when there is no lock, or it is an older Paddock's folder. */
  private linkedFolder(): Promise<string | undefined> {
    return fs.readlink(this.lockDir).catch(() => undefined);
  }

  /**
   * Takes the lock from `suspended`, a live holder its caller has watched stay stopped (SIGSTOP): only for
   * a lock that guards no section a holder could be left inside half done (the leader lease, whose
   * holder asks whether it still holds it before it acts). Undefined when the holder changed or runs again.
   */
  async takeFromSuspended(suspended: LockOwner): Promise<HeldLock | undefined> {
    const stillSuspended = async (holder: Exclude<Holder, { kind: 'free' }>) =>
      typeof holder.owner !== 'string' && holder.owner.token === suspended.token && (await isSuspended(holder.owner));
    if (!(await this.removeIf(stillSuspended))) return undefined;
    return this.tryTake();
  }

  /** Takes the lock if it is free (or its owner is gone); undefined if a live owner holds it. */
  async tryAcquire(): Promise<HeldLock | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const held = await this.tryTake();
      if (held) return held;
      if (!(await this.removeIfAbandoned())) return undefined;
    }
    return undefined;
  }

  /**
   * Waits up to `timeoutMs` for the lock. `sayWhenSuspended`: a person waits, so a holder that is
   * suspended ends the wait at once with the reason (a background pass just tries again later).
   */
  async acquire(timeoutMs: number, opts: { sayWhenSuspended?: boolean } = {}): Promise<HeldLock> {
    const deadline = Date.now() + timeoutMs;
    const suspended = opts.sayWhenSuspended ? new SuspendedHolderWatch() : undefined;
    let delay = 5;
    for (;;) {
      const held = await this.tryAcquire();
      if (held) return held;
      await suspended?.check(path.basename(this.lockDir), () => this.owner());
      if (Date.now() >= deadline) {
        // A holder not seen alive (the look failed) is not named: it may be gone.
        const judged = await this.judgedOwner();
        const who = judged?.liveness === 'alive' ? ` by pid ${judged.owner.pid} (${judged.owner.purpose})` : '';
        throw failure(`Timed out waiting for the lock ${path.basename(this.lockDir)}${who}.`, 'LOCK_TIMED_OUT');
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 100);
    }
  }

  /** Runs `fn` holding the lock. */
  async with<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
    const held = await this.acquire(timeoutMs);
    try {
      return await fn();
    } finally {
      await held.release();
    }
  }

  private async tryTake(): Promise<HeldLock | undefined> {
    // A held lock is waited for without writing anything: a waiter polls for minutes, and on a full
    // disk (another process's capture filling it for a moment) its owner file could not be written.
    if (await this.occupied()) return undefined;
    // Private like the rest of the store: owner files name processes and what they are doing.
    await makeDirs(path.dirname(this.lockDir), 0o700).catch((err: unknown) => {
      // A folder that cannot be made on a full disk is a lock that cannot be taken; anything else is said as it was.
      throw unwritableOr(this.lockDir, err);
    });
    const me = ownIdentity();
    const token = randomBytes(16).toString('hex');
    const owner: LockOwner = {
      pid: process.pid,
      startTime: me?.startTime ?? 0,
      bootId: me?.bootId ?? 'unknown',
      token,
      purpose: this.purpose,
      since: new Date().toISOString(),
    };
    // The owner is written whole before the lock exists: a process killed half-way leaves its folder
    // (swept below), never a lock without its owner that everyone must wait out.
    const held = path.join(path.dirname(this.lockDir), this.heldFolderName(token));
    try {
      await fs.mkdir(held, { mode: 0o700 });
      await fs.writeFile(path.join(held, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
      // Relative: the link names its folder beside it, wherever the store is.
      await fs.symlink(path.basename(held), this.lockDir);
    } catch (err) {
      await fs.rm(held, { recursive: true, force: true }).catch(() => undefined);
      // EEXIST: someone holds the lock (a link, or an older Paddock's folder). ENOENT: a sweep took this
      // folder for a dead process's (its owner file not written yet): the caller tries again.
      if (errnoOf(err) === 'EEXIST' || errnoOf(err) === 'ENOENT') return undefined;
      // The owner file could not be written (a full disk): a lock taken meanwhile is waited for like any
      // other; a free one cannot be taken, said in one sentence.
      if (await this.occupied()) return undefined;
      throw cannotTakeLock(this.lockDir, err);
    }
    // Best effort: the lock is ours already, and a failed sweep must not leave it held by nobody.
    await this.sweepLeftovers().catch(() => undefined);
    return {
      path: this.lockDir,
      token,
      release: () => this.release(token),
    };
  }

  /** Removes the lock: renamed away first (a reader sees the lock whole or no lock), then its folder. */
  private async discard(): Promise<void> {
    const away = `${this.lockDir}.${randomBytes(8).toString('hex')}${DISCARDED_SUFFIX}`;
    try {
      await fs.rename(this.lockDir, away);
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return;
      throw err;
    }
    await this.removeDiscarded(away);
  }

  /** A discarded lock and, for a link, its folder (only one of this lock's: an older Paddock's lock is the folder itself). */
  private async removeDiscarded(away: string): Promise<void> {
    const target = await fs.readlink(away).catch(() => undefined);
    if (target !== undefined && this.isHeldFolderName(target)) await fs.rm(path.join(path.dirname(this.lockDir), target), { recursive: true, force: true });
    await fs.rm(away, { recursive: true, force: true });
  }

  private heldFolderName(token: string): string {
    return `${path.basename(this.lockDir)}.${token}${HELD_SUFFIX}`;
  }

  /** A name beside this lock, `<lock>.….<suffix>` (a plain name: a link's target could be any path). */
  private isBeside(name: string, suffix: string): boolean {
    return name === path.basename(name) && name.startsWith(`${path.basename(this.lockDir)}.`) && name.endsWith(suffix);
  }

  private isHeldFolderName(name: string): boolean {
    return this.isBeside(name, HELD_SUFFIX);
  }

  /**
   * What processes killed while taking or removing this lock left beside it: a discarded lock, and a
   * taker's folder the lock does not link to whose owner is gone (a live taker's is about to be
   * linked). One without its whole owner file is judged by age: its maker writes the file at once.
   */
  private async sweepLeftovers(): Promise<void> {
    const folder = path.dirname(this.lockDir);
    const linked = await this.linkedFolder();
    for (const name of await fs.readdir(folder)) {
      const leftover = path.join(folder, name);
      if (this.isBeside(name, DISCARDED_SUFFIX)) {
        await this.removeDiscarded(leftover);
      } else if (this.isHeldFolderName(name) && name !== linked) {
        const owner = await readOwner(leftover);
        const gone = typeof owner === 'string' ? ((await ageMs(leftover)) ?? 0) >= BRIEF_STEP_STALE_MS : isGone(await livenessOfOwner(owner));
        if (gone) await fs.rm(leftover, { recursive: true, force: true });
      }
    }
  }

  private async release(token: string): Promise<void> {
    // Only our own link: a lock taken over meanwhile (we were judged gone) is not ours to remove.
    if ((await this.linkedFolder()) !== this.heldFolderName(token)) return;
    await this.discard();
  }

  private async holder(): Promise<Holder> {
    let folder: string;
    try {
      folder = await fs.readlink(this.lockDir);
    } catch (err) {
      if (errnoOf(err) === 'ENOENT') return { kind: 'free' };
      // Something there that cannot be looked at: held, as far as anyone can tell (never taken over).
      if (errnoOf(err) !== 'EINVAL') return { kind: 'folder', owner: 'unreadable', since: Date.now() };
      const since = await fs.lstat(this.lockDir).then((st) => st.mtimeMs, () => undefined);
      return since === undefined ? { kind: 'free' } : { kind: 'folder', owner: await readOwner(this.lockDir), since };
    }
    const since = await fs.lstat(this.lockDir).then((st) => st.mtimeMs, () => Date.now());
    // Read from the folder the link named, not through the path: a later take's link is another holder.
    const owner = this.isHeldFolderName(folder) ? await readOwner(path.join(path.dirname(this.lockDir), folder)) : 'unreadable';
    return { kind: 'link', folder, owner, since };
  }

  /**
   * Whether a holder is gone: its owner is not alive. A link is made only to a whole folder, so one whose
   * folder is gone (removed by hand) is no lock; an owner file that cannot be read, or an older Paddock's
   * folder without one, is judged by age.
   */
  private async abandoned(holder: Exclude<Holder, { kind: 'free' }>): Promise<boolean> {
    if (typeof holder.owner !== 'string') return isGone(await livenessOfOwner(holder.owner));
    if (holder.kind === 'link' && holder.owner === 'missing') return true;
    return Date.now() - holder.since >= OWNERLESS_STALE_MS;
  }

  private static sameHolder(a: Holder, b: Holder): boolean {
    if (a.kind === 'link' && b.kind === 'link') return a.folder === b.folder;
    if (a.kind === 'folder' && b.kind === 'folder') {
      return typeof a.owner === 'string' || typeof b.owner === 'string' ? typeof a.owner === typeof b.owner && a.since === b.since : a.owner.token === b.owner.token;
    }
    return false;
  }

  /** Removes the lock when its holder is provably gone; true if it did (or the lock vanished meanwhile). */
  private removeIfAbandoned(): Promise<boolean> {
    return this.removeIf((holder) => this.abandoned(holder));
  }

  /** Removes the lock when `judge` says its holder may be removed, judged again under the takeover guard; true if it did (or the lock vanished meanwhile). */
  private async removeIf(judge: (holder: Exclude<Holder, { kind: 'free' }>) => Promise<boolean>): Promise<boolean> {
    const judged = await this.holder();
    if (judged.kind === 'free') return true;
    if (!(await judge(judged))) return false;
    const guard = `${this.lockDir}.takeover`;
    try {
      await fs.mkdir(guard, { mode: 0o700 });
    } catch (err) {
      // A holder judged gone on a store nothing can be written in: the lock is as free as one never taken.
      if (errnoOf(err) !== 'EEXIST') throw unwritableOr(this.lockDir, err);
      const age = await ageMs(guard);
      if (age !== undefined && age > BRIEF_STEP_STALE_MS) await fs.rm(guard, { recursive: true, force: true });
      return false;
    }
    try {
      // Re-check under the guard: only the very holder judged gone is removed (a link tells one take from
      // the next by its folder's name), and only if it still is.
      const now = await this.holder();
      if (now.kind === 'free' || !OwnedLock.sameHolder(judged, now) || !(await judge(now))) return true;
      await this.discard().catch((err: unknown) => {
        throw unwritableOr(this.lockDir, err);
      });
      return true;
    } finally {
      await fs.rm(guard, { recursive: true, force: true });
    }
  }
}
