import { IDisposable, toDisposable } from './lifecycle';

/** A subscribable event, shaped like `vscode.Event` so the UI can pass it through. */
export type Event<T> = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: IDisposable[]) => IDisposable;

/** Emitter after VS Code's `event.ts`: one listener list, errors in a listener never reach the firer. */
export class Emitter<T> implements IDisposable {
  private listeners = new Set<(e: T) => unknown>();
  private disposed = false;
  private _event?: Event<T>;

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  get event(): Event<T> {
    this._event ??= (listener, thisArg, disposables) => {
      const bound = thisArg ? listener.bind(thisArg) : listener;
      if (this.disposed) return toDisposable(() => undefined);
      this.listeners.add(bound);
      const d = toDisposable(() => this.listeners.delete(bound));
      disposables?.push(d);
      return d;
    };
    return this._event;
  }

  fire(e: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

/** Resolves with the next value of an event (used by tests and by request/acknowledge flows). */
export function once<T>(event: Event<T>, predicate: (e: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const d = event((e) => {
      if (predicate(e)) {
        d.dispose();
        resolve(e);
      }
    });
  });
}
