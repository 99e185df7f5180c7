/**
 * node:crypto, loaded on first use. Reading the store (`paddock list`, a
 * window's first load) needs none of it, and loading it costs a short-lived
 * `paddock` process ~3 ms; the store's writers and the socket names ask for it
 * when they run.
 */
import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

function crypto(): typeof Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('node:crypto') as typeof Crypto;
  return loaded;
}

export function randomBytes(size: number): Buffer {
  return crypto().randomBytes(size);
}

export function createHash(algorithm: string): Crypto.Hash {
  return crypto().createHash(algorithm);
}
