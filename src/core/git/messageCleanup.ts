/**
 * A landing's commit message cleaned as `git merge` cleans the message of the commit it makes
 * (`commit.cleanup`, then `--cleanup=` in `branch.<target>.mergeOptions`; with no editor, as
 * Paddock's landings have none): `default`, `whitespace` and `scissors` strip trailing whitespace
 * and blank lines at either end and fold runs of blank lines into one, `strip` also drops the
 * lines that begin with the comment character, `verbatim` leaves the message as it is. Checked
 * against git 2.39's `git merge -m` (sequencer.c get_cleanup_mode, strbuf_stripspace).
 */
import { failure } from '../common/errors';

export type CleanupMode = 'verbatim' | 'whitespace' | 'strip';

export interface MessageCleanup {
  mode: CleanupMode;
  /** `core.commentChar` (git's `#` by default; `auto` is `#` for a merge, as git merge chooses none). */
  commentChar: string;
}

export const MESSAGE_CLEANUP_DEFAULT: MessageCleanup = { mode: 'whitespace', commentChar: '#' };

/** A cleanup mode's name as git merge takes it (without an editor), or null for one git refuses ("Invalid cleanup mode"). */
export function cleanupModeOf(name: string): CleanupMode | null {
  if (name === 'default' || name === 'whitespace' || name === 'scissors') return 'whitespace';
  if (name === 'strip' || name === 'verbatim') return name;
  return null;
}

/** The comment character git reads from `core.commentChar`'s value (its first character; `auto` keeps `#` for a merge). */
export function commentCharOf(value: string | null): string {
  if (value === null || value === '' || value === 'auto') return '#';
  return value[0];
}

/** git's own stripspace: what `git merge` does to the message before it commits. */
export function cleanedMessage(message: string, cleanup: MessageCleanup): string {
  if (cleanup.mode === 'verbatim') return message.endsWith('\n') ? message : `${message}\n`;
  const kept: string[] = [];
  let blanks = 0;
  const lines = message.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (cleanup.mode === 'strip' && line.startsWith(cleanup.commentChar)) continue;
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

/** The message git merge would commit: cleaned as the settings say; one left empty is refused, as git merge refuses it. */
export function committedMessage(message: string, cleanup: MessageCleanup): string {
  const cleaned = cleanedMessage(message, cleanup);
  if (cleaned === '') throw failure(`The commit message is empty once cleaned as git's commit.cleanup or --cleanup says (${cleanup.mode}); nothing was changed (give one with --message).`, 'EMPTY_MESSAGE');
  return cleaned;
}
