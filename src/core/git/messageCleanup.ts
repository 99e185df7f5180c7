/**
 * A landing's commit message cleaned as git cleans the message of the commit it makes, with no
 * editor (Paddock's landings have none). A merge commit follows `git merge`: `commit.cleanup`,
 * then `--cleanup=` in `branch.<target>.mergeOptions`. A squash follows `git commit`, which makes
 * the commit after `git merge --squash`: `commit.cleanup` alone. `default`, `whitespace` and
 * `scissors` strip trailing whitespace and blank lines at either end and fold runs of blank lines
 * into one, `strip` also drops the lines that begin with the comment character, `verbatim` leaves
 * the message as it is (git commit completes its last line, git merge does not). Checked against
 * git 2.39's `git merge -m` and `git merge --squash && git commit -m` (sequencer.c
 * get_cleanup_mode, strbuf_stripspace, builtin/commit.c adjust_comment_line_char).
 */
import { failure } from '../common/errors';

export type CleanupMode = 'verbatim' | 'whitespace' | 'strip';

/** Whose rules a message follows: git merge's (a merge commit) or git commit's (a squash's commit). */
export type CommittedBy = 'git merge' | 'git commit';

export interface MessageCleanup {
  by: CommittedBy;
  mode: CleanupMode;
  /** `core.commentChar` as git holds it (`#` unless set; `auto` leaves the one before). */
  commentChar: string;
  /** `core.commentChar=auto` (any case) was the last value: git commit then picks a character no line of the message begins with; git merge keeps `commentChar`. */
  autoCommentChar: boolean;
}

export const MESSAGE_CLEANUP_DEFAULT: MessageCleanup = { by: 'git merge', mode: 'whitespace', commentChar: '#', autoCommentChar: false };

/** A cleanup mode's name as git takes it (without an editor), or null for one git refuses ("Invalid cleanup mode"). */
export function cleanupModeOf(name: string): CleanupMode | null {
  if (name === 'default' || name === 'whitespace' || name === 'scissors') return 'whitespace';
  if (name === 'strip' || name === 'verbatim') return name;
  return null;
}

/**
 * One `core.commentChar` value as git reads it (config.c): `auto` in any case, or a single byte;
 * null for what git refuses ("should only be one character", or no value), at which every git command stops.
 */
export function commentCharValue(value: string | null): { auto: true } | { auto: false; char: string } | null {
  if (value === null) return null;
  if (/^auto$/i.test(value)) return { auto: true };
  // A single byte: git compares bytes, so a character outside ASCII (two bytes or more) is refused too.
  return Buffer.byteLength(value, 'utf8') === 1 ? { auto: false, char: value } : null;
}

/** The characters git commit tries for `core.commentChar=auto`, in its order. */
const AUTO_COMMENT_CHARS = '#;@!$%^&|:';

/** The comment character git commit picks for `message` with `core.commentChar=auto`: `#` unless it appears, else the first no line begins with. */
function commentCharChosenFor(message: string): string {
  if (!message.includes('#')) return '#';
  const begins = new Set<string>([message[0]]);
  // git looks after every newline and carriage return that is followed by something.
  for (let i = 0; i < message.length - 1; i++) if (message[i] === '\n' || message[i] === '\r') begins.add(message[i + 1]);
  const free = [...AUTO_COMMENT_CHARS].find((c) => !begins.has(c));
  if (free === undefined) {
    throw failure(
      `With git's core.commentChar=auto, git commit finds no comment character that no line of the message begins with (${AUTO_COMMENT_CHARS}) and stops; nothing was changed (give another message with --message).`,
      'GIT_SETTING',
    );
  }
  return free;
}

/** git's own stripspace, or none: what git does to the message before it commits. */
export function cleanedMessage(message: string, cleanup: MessageCleanup): string {
  if (cleanup.mode === 'verbatim') return cleanup.by === 'git commit' && message !== '' && !message.endsWith('\n') ? `${message}\n` : message;
  const commentChar = cleanup.by === 'git commit' && cleanup.autoCommentChar ? commentCharChosenFor(message) : cleanup.commentChar;
  const kept: string[] = [];
  let blanks = 0;
  const lines = message.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (cleanup.mode === 'strip' && line.startsWith(commentChar)) continue;
    // git's isspace: space, tab, newline, carriage return.
    const text = line.replace(/[ \t\r\n]+$/, '');
    if (text === '') {
      blanks++;
      continue;
    }
    if (blanks > 0 && kept.length > 0) kept.push('');
    blanks = 0;
    kept.push(text);
  }
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}

/** The message git would commit: cleaned as the settings say; one left empty is refused, as git refuses it. */
export function committedMessage(message: string, cleanup: MessageCleanup): string {
  const cleaned = cleanedMessage(message, cleanup);
  if (cleaned === '') throw failure(`The commit message is empty once cleaned as git's commit.cleanup or --cleanup says (${cleanup.mode}); nothing was changed (give one with --message).`, 'EMPTY_MESSAGE');
  return cleaned;
}
