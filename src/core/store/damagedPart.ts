/**
 * A file-system error about a part of the store, said as the agent and the part that is damaged:
 * "Agent ab12cd34's output folder could not be listed: it is a file, not a folder (/…/output)"
 * rather than "ENOTDIR: not a directory, scandir '/…/output'" (bug 50). The CLI's error report
 * uses it for anything a command throws; operations use it for a part they name on purpose.
 */
import { basename, relative, sep } from 'node:path';
import { describeError } from '../common/errors';
import { fsActionWords, fsErrorWords, fsReasonWords, isFsError, withoutErrnoText, type FsError } from '../common/fsErrors';
import { TEMP_PREFIX } from './durable';
import { EVIDENCE_DIR, EXECUTION_LOCK, EXECUTION_OWNER, FINAL_SCREEN_FILE, isJobId, OUTPUT_DIR, RECORD_FILE, RECORD_LOCK, REQUEST_ENV_FILE, REVIEW_FILE, TIMELINE_FILE, WORKER_LOG_FILE } from './paths';

/** The parts of a job folder a person may meet in an error, by their name there. */
const PART_WORDS: Readonly<Record<string, string>> = {
  [RECORD_FILE]: 'record',
  [TIMELINE_FILE]: 'timeline',
  [OUTPUT_DIR]: 'output folder',
  [EVIDENCE_DIR]: 'evidence folder',
  [RECORD_LOCK]: 'record lock',
  [EXECUTION_LOCK]: 'execution lock',
  [EXECUTION_OWNER]: 'execution owner file',
  [REQUEST_ENV_FILE]: 'sealed environment',
  [FINAL_SCREEN_FILE]: 'saved final screen',
  [WORKER_LOG_FILE]: 'worker log',
  [REVIEW_FILE]: 'review comments',
  bin: 'helper folder',
};

/** The part of agent `id`'s folder that `path` names, in words ("output segment 000000000001.seg"); undefined outside every job folder. */
export function storePartOf(home: string, path: string): { id: string; part: string } | undefined {
  const inside = relative(`${home}${sep}jobs`, path);
  if (inside === '' || inside.startsWith('..') || inside.startsWith(sep)) return undefined;
  const [id, first, ...rest] = inside.split(sep);
  if (!isJobId(id)) return undefined;
  if (first === undefined) return { id, part: 'folder' };
  const name = first.startsWith(TEMP_PREFIX) ? first.slice(TEMP_PREFIX.length).replace(/\.[^.]*\.[0-9a-f]+$/, '') : first;
  if (rest.length > 0 && name === OUTPUT_DIR) return { id, part: `output segment ${basename(path)}` };
  if (rest.length > 0 && name === EVIDENCE_DIR) return { id, part: `saved evidence ${rest.join('/')}` };
  if (rest.length > 0) return { id, part: `${PART_WORDS[name] ?? `file ${name}`} (${rest.join('/')} in it)` };
  return { id, part: PART_WORDS[name] ?? `file ${name}` };
}

/** "Agent X's timeline could not be opened: it is a folder, not a file (/…/timeline.jsonl)", or undefined for a path outside the job folders. */
export function damagedPartWords(home: string, err: FsError): string | undefined {
  // A rename puts a temp file in the part's place: the part is its destination.
  const named = err.dest ?? err.path;
  const part = named === undefined ? undefined : storePartOf(home, named);
  if (!part) return undefined;
  return `Agent ${part.id}'s ${part.part} could not be ${fsActionWords(err.syscall)}: ${fsReasonWords(err.code, err.syscall)} (${named})`;
}

/** Any thrown value in one line of words: an fs error names the agent and the part (or the path); errno text inside a message is said in words too. */
export function storeErrorWords(home: string, err: unknown): string {
  if (isFsError(err)) return damagedPartWords(home, err) ?? fsErrorWords(err);
  return storeTextWithoutErrno(home, describeError(err));
}

/** `text` with each errno message in it said as the agent's damaged part (or the path) in words. */
export function storeTextWithoutErrno(home: string, text: string): string {
  return withoutErrnoText(text, (err) => damagedPartWords(home, err));
}
