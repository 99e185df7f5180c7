/**
 * Whether the parts of a job folder that a new execution writes are what they must be, before a
 * retry takes effect: a timeline that is a folder, an output folder that is a file, a sealed
 * environment that is a folder failed the retry half-way (its generation begun, the person told it
 * failed, in errno words: bug 49). Checked first, such damage refuses the retry with nothing changed.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fsReasonWords } from '../common/fsErrors';
import { segmentPath, segmentSeqs } from './outputLog';
import { OUTPUT_DIR, StoreLayout, TIMELINE_FILE } from './paths';
import { storePartOf } from './damagedPart';

/** What a new execution writes in its job's folder, and what each must be when it is there. */
const WRITTEN_PARTS: readonly { name: string; kind: 'file' | 'folder' }[] = [
  { name: TIMELINE_FILE, kind: 'file' },
  { name: OUTPUT_DIR, kind: 'folder' },
  // Named where they are written (coordinator/requestEnv.ts, worker/spawn.ts, worker/finalScreen.ts).
  { name: 'env.sealed', kind: 'file' },
  { name: 'worker.log', kind: 'file' },
  { name: 'screen.txt', kind: 'file' },
];

/** "its timeline (/…/timeline.jsonl) is a folder, not a file", for the first damaged part; undefined when all are sound. */
export function damagedWrittenPart(layout: StoreLayout, id: string): string | undefined {
  const dir = layout.jobDir(id);
  for (const { name, kind } of WRITTEN_PARTS) {
    const path = join(dir, name);
    const wrong = wrongKind(path, kind);
    if (wrong) return describe(layout, path, wrong);
    if (name !== OUTPUT_DIR || !fs.existsSync(path)) continue;
    for (const seq of segmentSeqs(readNames(path))) {
      const segment = segmentPath(path, seq);
      const bad = wrongKind(segment, 'file');
      if (bad) return describe(layout, segment, bad);
    }
  }
  return undefined;
}

/** What is at `path` instead of a `kind`, or undefined when it is one (or nothing is there). */
function wrongKind(path: string, kind: 'file' | 'folder'): string | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    const { code, syscall } = err as NodeJS.ErrnoException;
    return `cannot be examined: ${fsReasonWords(code ?? 'EIO', syscall)}`;
  }
  if (st === undefined) return undefined;
  if (kind === 'folder') return st.isDirectory() ? undefined : 'is a file, not a folder';
  if (st.isFile()) return undefined;
  return st.isDirectory() ? 'is a folder, not a file' : 'is not a regular file';
}

function describe(layout: StoreLayout, path: string, wrong: string): string {
  const part = storePartOf(layout.home, path)?.part ?? path;
  return `its ${part} (${path}) ${wrong}`;
}

function readNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
