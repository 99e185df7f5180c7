/**
 * The agent's last screen, kept in its job folder when it ends (`screen.txt`),
 * so `paddock screen` and the window can show it after the worker is gone.
 * Redacted like everything persisted; written through the store's durable write.
 */
import { describeError } from '../common/errors';
import type { Redactor } from '../store';
import { FINAL_SCREEN_FILE } from '../store/paths';
import { writeFileDurableSync } from '../store/durable';
import { trimScreen } from '../protocol/trimScreen';
import type { ScreenMirror } from './mirror';

/** In the job folder: the agent's visible screen when it ended. */
export { FINAL_SCREEN_FILE };

export function saveFinalScreen(mirror: ScreenMirror, redactor: Redactor, file: string, log: (message: string) => void): void {
  try {
    const lines = trimScreen(mirror.visibleLines({ joinWrapped: true }));
    // Secrets an agent printed stay off disk.
    const text = redactor.redact(lines.join('\n'));
    // The one durable write: the worker exits next, and this is all that is left of the screen.
    writeFileDurableSync(file, text + (lines.length ? '\n' : ''));
  } catch (err) {
    log(`could not save the final screen: ${describeError(err)}`);
  }
}
