/**
 * Change notification: every committed write touches changes/<id>, which the
 * watchers of every process (windows, coordinators) see. See docs/store.md.
 */
import * as fs from 'node:fs';
import { describeError } from '../common/errors';
import { ensureDir, FILE_MODE } from './durable';
import { StoreLayout } from './paths';

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

  /** Best effort: a missed touch is caught by the watcher's periodic reconcile. */
  touch(id: string): void {
    try {
      this.ensureDir();
      fs.writeFileSync(this.layout.changeFile(id), `${process.pid}:${++this.counter}\n`, { mode: FILE_MODE });
    } catch (err) {
      this.log(`change notification for agent ${id}: ${describeError(err)}`);
    }
  }
}
