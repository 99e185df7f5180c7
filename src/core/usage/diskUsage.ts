/**
 * A worktree's size on disk, as `du -s` counts it (allocated blocks, each
 * hard-linked file once, symbolic links never followed: the `link`ed caches
 * are not the agent's), measured incrementally. Each folder remembers its
 * entries under its modification time: an unchanged folder is not listed
 * again, and of its files only the recently written ones ("hot", which may
 * still be growing in place) are looked at again. Every few passes a full pass
 * catches older files rewritten in place. Asynchronous, a few calls at a time,
 * so it can run in the extension host without holding its event loop.
 */
import { promises as fsp, type BigIntStats, type Stats } from 'node:fs';
import { join } from 'node:path';
import { mapConcurrently } from '../common/limiter';

const CONCURRENCY = 16;
/** A file written to within this long is looked at again on every pass. */
const HOT_MS = 10 * 60_000;
/** One pass in this many looks at every file. */
const FULL_PASS_EVERY = 20;

interface FileEntry {
  bytes: number;
  mtimeMs: number;
  /**
   * The file's identity, by which every file is counted once per pass. Not
   * only files with several links at the time they were looked at: a file
   * not looked at again (an old one) may have gained a link since, elsewhere.
   */
  dev: number;
  ino: number;
}

interface FolderEntry {
  mtimeMs: number;
  ctimeMs: number;
  ownBytes: number;
  files: Map<string, FileEntry>;
  folders: string[];
}

export class DiskUsage {
  private readonly folders = new Map<string, FolderEntry>();
  private passes = 0;

  /** Bytes under `root` (the root included); null when it does not exist. */
  async measure(root: string): Promise<number | null> {
    const full = this.passes++ % FULL_PASS_EVERY === 0;
    const now = Date.now();
    const counted = new Map<number, Set<number>>();
    const visited = new Set<string>();
    const total = await this.folder(root, { full, now, counted, visited });
    for (const path of this.folders.keys()) if (!visited.has(path)) this.folders.delete(path);
    return total;
  }

  private async folder(path: string, pass: Pass): Promise<number | null> {
    let stat: Stats;
    try {
      stat = await fsp.lstat(path);
    } catch {
      return null;
    }
    if (!stat.isDirectory()) return blocksOf(stat);
    pass.visited.add(path);
    const cached = this.folders.get(path);
    let entry: FolderEntry;
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.ctimeMs === stat.ctimeMs) {
      entry = cached;
      entry.ownBytes = blocksOf(stat);
      await this.refreshFiles(path, entry, pass);
    } else {
      entry = await this.list(path, stat);
      this.folders.set(path, entry);
    }
    let total = entry.ownBytes;
    for (const file of entry.files.values()) {
      let inodes = pass.counted.get(file.dev);
      if (!inodes) pass.counted.set(file.dev, (inodes = new Set()));
      if (inodes.has(file.ino)) continue;
      inodes.add(file.ino);
      total += file.bytes;
    }
    // Sub-folders one after another: the depth of the walk, not its breadth, bounds what is in flight.
    for (const name of entry.folders) total += (await this.folder(join(path, name), pass)) ?? 0;
    return total;
  }

  /** Lists a folder that is new or changed, looking at each entry. */
  private async list(path: string, stat: Stats): Promise<FolderEntry> {
    const entry: FolderEntry = { mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ownBytes: blocksOf(stat), files: new Map(), folders: [] };
    let names: string[];
    try {
      names = await fsp.readdir(path);
    } catch {
      return entry; // unreadable: counts as its own blocks only, like du's warning
    }
    const stats = await lstatEach(path, names);
    names.forEach((name, i) => {
      const s = stats[i];
      if (!s) return;
      if (s.isDirectory()) entry.folders.push(name);
      else entry.files.set(name, fileEntry(s));
    });
    return entry;
  }

  /** Looks again at the files of an unchanged folder that may have grown in place. */
  private async refreshFiles(path: string, entry: FolderEntry, pass: Pass): Promise<void> {
    const names = [...entry.files].filter(([, f]) => pass.full || pass.now - f.mtimeMs < HOT_MS).map(([name]) => name);
    const stats = await lstatEach(path, names);
    names.forEach((name, i) => {
      const s = stats[i];
      if (s) entry.files.set(name, fileEntry(s));
      else entry.files.delete(name);
    });
  }
}

interface Pass {
  full: boolean;
  now: number;
  /** Inodes counted in this pass, by device. */
  counted: Map<number, Set<number>>;
  visited: Set<string>;
}

function blocksOf(stat: Stats | BigIntStats): number {
  return Number(stat.blocks) * 512;
}

function fileEntry(s: Stats): FileEntry {
  return { bytes: blocksOf(s), mtimeMs: s.mtimeMs, dev: s.dev, ino: s.ino };
}

/** lstat of each name in a folder, a few at a time; undefined for one that vanished or cannot be read. */
function lstatEach(path: string, names: readonly string[]): Promise<(Stats | undefined)[]> {
  return mapConcurrently(names, CONCURRENCY, async (name) => {
    try {
      return await fsp.lstat(join(path, name));
    } catch {
      return undefined;
    }
  });
}
