/**
 * Errors the person sees. `kind` decides the CLI exit status: `usage` (bad
 * input, exit 2) or `failed` (the operation failed, exit 1). The message is one
 * sentence meant for a human; never a stack trace.
 */
export type PaddockErrorKind = 'usage' | 'failed';

export class PaddockError extends Error {
  constructor(
    message: string,
    readonly kind: PaddockErrorKind = 'failed',
    readonly code?: string,
  ) {
    super(message);
    this.name = 'PaddockError';
  }
}

export function usageError(message: string, code?: string): PaddockError {
  return new PaddockError(message, 'usage', code);
}

export function failure(message: string, code?: string): PaddockError {
  return new PaddockError(message, 'failed', code);
}

/** A one-line description of any thrown value, capped so it can be persisted. */
export function describeError(err: unknown, max = 2000): string {
  const text = err instanceof Error ? err.message : String(err);
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
