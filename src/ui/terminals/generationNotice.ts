/**
 * What a terminal writes when the screen it reconnects to is a new generation of its agent (a
 * Retry started one while it was reconnecting). Replayed as any reconnect's screen, the new run
 * erased the old run's last screen and scrollback and went on as if nothing had happened. As tmux
 * keeps a respawned pane's old output in its history, the old output is scrolled into the
 * scrollback, one dim line of its own under it says which generation started, and the new screen
 * is drawn below them with the scrollback kept; the title says it too, until the first keystroke.
 */
import { RESET_TERMINAL_MODES } from '../../core/protocol/terminalModes';
import { paddockLine } from './endNotice';

/** Clears the view for a replayed screen and keeps what scrolled off it. */
export const CLEAR_VIEW = '\x1b[H\x1b[2J';
/** Also erases the scrollback: a reconnect to the same run replays its screen and its history is that run's. */
export const CLEAR_ALL = `${CLEAR_VIEW}\x1b[3J`;

/**
 * What the terminal's title says from the new generation's screen until the first keystroke: the
 * dim line is scrolled off with the old run, so the title is what is in view when the person types.
 */
export const newGenerationTitle = (name: string, generation: number): string => `${name} (generation ${generation}, retried)`;

/** Written before the new generation's screen, on a terminal `rows` high. */
export function newGenerationNotice(rows: number, previous: number, generation: number): string {
  // "Output", not "screen": a full-screen agent's last screen is on the alternate screen, kept while
  // reconnecting (bug 172) and left by the mode reset below; what is above is the normal screen's.
  const words = `generation ${generation} started (a retry); generation ${previous}'s output is above.`;
  // The old run's modes go with it; from the last row, a line feed per row scrolls the old screen
  // and the notice into the scrollback, where the new screen's clear leaves them.
  return `${RESET_TERMINAL_MODES}\x1b[${Math.max(1, rows)};1H${paddockLine(words)}${'\n'.repeat(Math.max(1, rows))}`;
}
