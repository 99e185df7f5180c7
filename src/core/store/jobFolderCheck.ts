/**
 * Whether the parts of a job folder that a new execution writes are what they must be, before a
 * retry takes effect: a timeline that is a folder, an output folder that is a file, a sealed
 * environment that is a folder failed the retry half-way (its generation begun, the person told it
 * failed, in errno words: bug 49). Checked first, such damage refuses the retry with nothing changed.
 * Asynchronous: a window's Retry runs it on the extension host's loop, one stat per output segment.
 */
import { promises as fs, type Stats } from 'node:fs';
import { join } from 'node:path';
import { fsFailureWords } from '../common/fsErrors';
import { segmentPath, segmentSeqs } from './outputLog';
import { FINAL_SCREEN_FILE, OUTPUT_DIR, REQUEST_ENV_FILE, StoreLayout, TIMELINE_FILE, WORKER_LOG_FILE } from './paths';
import { storePartOf } from './damagedPart';

/** What a new execution writes in its job's folder, and what each must be when it is there. */
const WRITTEN_PARTS: readonly { name: string; kind: 'file' | 'folder' }[] = [
  { name: TIMELINE_FILE, kind: 'file' },
  { name: OUTPUT_DIR, kind: 'folder' },
  { name: REQUEST_ENV_FILE, kind: 'file' },
  { name: WORKER_LOG_FILE, kind: 'file' },
  { name: FINAL_SCREEN_FILE, kind: 'file' },
];

/** "its timeline (/…/timeline.jsonl) is a folder, not a file", for the first damaged part; undefined when all are sound. */
export async function damagedWrittenPart(layout: StoreLayout, id: string): Promise<string | undefined> {
  const dir = layout.jobDir(id);
  for (const { name, kind } of WRITTEN_PARTS) {
    const path = join(dir, name);
    const found = await kindAt(path);
    const wrong = wrongKind(found, kind);
    if (wrong) return describe(layout, path, wrong);
    if (name !== OUTPUT_DIR || found === undefined) continue;
    const names = await fs.readdir(path).catch(() => [] as string[]);
    for (const seq of segmentSeqs(names)) {
      const segment = segmentPath(path, seq);
      const bad = wrongKind(await kindAt(segment), 'file');
      if (bad) return describe(layout, segment, bad);
    }
  }
  return undefined;
}

/** What is at `path` (undefined: nothing), or why it cannot be told. */
async function kindAt(path: string): Promise<Stats | { error: string } | undefined> {
  try {
    return await fs.stat(path);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { error: fsFailureWords(err) };
  }
}

/** What is there instead of a `kind`, or undefined when it is one (or nothing is there). */
function wrongKind(found: Stats | { error: string } | undefined, kind: 'file' | 'folder'): string | undefined {
  if (found === undefined) return undefined;
  if ('error' in found) return `cannot be examined: ${found.error}`;
  if (kind === 'folder') return found.isDirectory() ? undefined : 'is a file, not a folder';
  if (found.isFile()) return undefined;
  return found.isDirectory() ? 'is a folder, not a file' : 'is not a regular file';
}

function describe(layout: StoreLayout, path: string, wrong: string): string {
  const part = storePartOf(layout.home, path)?.part ?? path;
  return `its ${part} (${path}) ${wrong}`;
}
