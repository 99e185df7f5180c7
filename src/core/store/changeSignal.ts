/**
 * Change notification: every committed write touches changes/<id>, which the
 * watchers of every process (windows, coordinators) see. See docs/store.md.
 */
import { describeError } from '../common/errors';
import { ensureDir, FILE_MODE } from './durable';
import { StoreLayout } from './paths';
import { isNotRegularFile, writeRegularFileSync } from './regularFile';

export class ChangeSignal {
  private ready = false;
  private counter = 0;

  constructor(
    private readonly layout: StoreLayout,
    private readonly log: (msg: string) => void,
  ) {}

  /** The folder watchers watch, made on first use. */
  ensureDir(): string {
    if (!this.ready) {
      ensureDir(this.layout.changesDir);
      this.ready = true;
    }
    return this.layout.changesDir;
  }

  /**
   * Best effort: a missed touch is caught by the watcher's periodic reconcile. A signal file that is not
   * a regular file (a FIFO would block the open for ever) is skipped and left as it is.
   */
  touch(id: string): void {
    try {
      this.ensureDir();
      writeRegularFileSync(this.layout.changeFile(id), `${process.pid}:${++this.counter}\n`, FILE_MODE);
    } catch (err) {
      this.log(`change notification for agent ${id}: ${isNotRegularFile(err) ? err.message : describeError(err)}`);
    }
  }
}
