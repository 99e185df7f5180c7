/**
 * The agent's last screen, kept in its job folder when it ends (`screen.txt`),
 * so `paddock screen` and the window can show it after the worker is gone.
 * Redacted like everything persisted; written whole, then renamed into place.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { describeError } from '../common/errors';
import type { Redactor } from '../store';
import { FINAL_SCREEN_FILE } from '../store/paths';
import { trimScreen } from '../protocol/trimScreen';
import type { ScreenMirror } from './mirror';

/** In the job folder: the agent's visible screen when it ended. */
export { FINAL_SCREEN_FILE };

export function saveFinalScreen(mirror: ScreenMirror, redactor: Redactor, file: string, log: (message: string) => void): void {
  try {
    const lines = trimScreen(mirror.visibleLines({ joinWrapped: true }));
    const tmp = `${file}.tmp-${process.pid}`;
    // Secrets an agent printed stay off disk.
    const text = redactor.redact(lines.join('\n'));
    writeFileSync(tmp, text + (lines.length ? '\n' : ''), { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    log(`could not save the final screen: ${describeError(err)}`);
  }
}
