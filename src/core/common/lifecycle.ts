/**
 * Disposable ownership, after VS Code's `lifecycle.ts`: every timer, watcher,
 * socket and listener is registered with exactly one owner, and disposing the
 * owner disposes everything it holds (in reverse order of registration).
 */
export interface IDisposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) {
      // Adding to a disposed store would leak the item: dispose it at once.
      item.dispose();
      return item;
    }
    this.items.add(item);
    return item;
  }

  delete(item: IDisposable): void {
    if (this.items.delete(item)) item.dispose();
  }

  clear(): void {
    const errors: unknown[] = [];
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    this.items.clear();
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clear();
  }
}

export abstract class Disposable implements IDisposable {
  protected readonly _store = new DisposableStore();

  protected _register<T extends IDisposable>(item: T): T {
    return this._store.add(item);
  }

  dispose(): void {
    this._store.dispose();
  }
}

/** A disposable timer: setTimeout/setInterval that cannot outlive its owner. */
export function disposableTimeout(fn: () => void, ms: number, unref = true): IDisposable {
  const handle = setTimeout(fn, ms);
  if (unref) handle.unref?.();
  return toDisposable(() => clearTimeout(handle));
}

export function disposableInterval(fn: () => void, ms: number, unref = true): IDisposable {
  const handle = setInterval(fn, ms);
  if (unref) handle.unref?.();
  return toDisposable(() => clearInterval(handle));
}

/**
 * Holds at most one disposable, after VS Code's `MutableDisposable`: "the
 * current timer" or "the current subscription". Setting a new value disposes
 * the old one; disposing the holder disposes the value and refuses new ones.
 */
export class MutableDisposable<T extends IDisposable> implements IDisposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.disposed ? undefined : this.current;
  }

  set value(next: T | undefined) {
    if (this.disposed) {
      next?.dispose();
      return;
    }
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    previous?.dispose();
  }

  clear(): void {
    this.value = undefined;
  }

  dispose(): void {
    this.disposed = true;
    const previous = this.current;
    this.current = undefined;
    previous?.dispose();
  }
}
