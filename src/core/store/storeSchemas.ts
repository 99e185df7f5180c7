/**
 * The store's zod schemas, built on first use. Building them takes ~6 ms of a
 * `paddock list` (and of every window's start), and reading valid records
 * never needs them: the hand-written check (`recordCheck.ts`) accepts those,
 * and only a record it does not accept, a write, or a timeline line asks zod.
 * A static import would build them when the store loads, so the store's own
 * modules reach them through here.
 */
import type * as RecordSchemas from './recordSchemas';

let loaded: typeof RecordSchemas | undefined;

export function storeSchemas(): typeof RecordSchemas {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./recordSchemas') as typeof RecordSchemas;
  return loaded;
}
