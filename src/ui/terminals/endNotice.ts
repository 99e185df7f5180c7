/**
 * What a viewer writes when the agent it shows has ended: terminal modes
 * reset, then one dim line on a fresh line after the output. Leaving the
 * alternate screen (`CSI ?1049l`) also restores the saved cursor — to where it
 * was before the agent's program started, or the top left if it never saved
 * one — so the cursor is saved first (DECSC) at the end of the output: the
 * restore then lands there and the notice cannot overwrite the last lines.
 */
import { RESET_TERMINAL_MODES } from '../../core/protocol/terminalModes';

const SAVE_CURSOR = '\x1b7';

export const paddockLine = (text: string): string => `\r\n\x1b[2m[paddock] ${text}\x1b[0m\r\n`;

export function endNotice(text: string): string {
  return `${SAVE_CURSOR}${RESET_TERMINAL_MODES}${paddockLine(text)}`;
}
