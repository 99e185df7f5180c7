/**
 * The building blocks of the hand-written record check (`recordCheck.ts`):
 * each checks one value as the matching zod schema would and returns it, or
 * throws REJECT, caught once at the top, when it does not pass.
 */

export type Obj = Record<string, unknown>;

/** Thrown inside the check when a value does not pass; caught once at the top. */
export const REJECT = Symbol('reject');

export function fail(): never {
  throw REJECT;
}

export const SHA = /^[0-9a-f]{40,64}$/;

export function obj(v: unknown, known: ReadonlySet<string>): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail();
  // A key this check does not know: zod would strip it, unless the schema
  // has it (added there and not here). Let zod decide.
  for (const key in v) if (!known.has(key)) fail();
  return v as Obj;
}

export function str(v: unknown, max: number, min = 0): string {
  if (typeof v !== 'string' || v.length > max || v.length < min) fail();
  return v;
}

export function strMatch(v: unknown, pattern: RegExp, max = Infinity): string {
  if (typeof v !== 'string' || v.length > max || !pattern.test(v)) fail();
  return v;
}

export function num(v: unknown, min = -Infinity, max = Infinity): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) fail();
  return v;
}

export function int(v: unknown, min = -Infinity, max = Infinity): number {
  if (!Number.isSafeInteger(v)) fail();
  return num(v, min, max);
}

export function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') fail();
  return v;
}

export function oneOf<T extends string>(v: unknown, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) fail();
  return v as T;
}

export function arr<T>(v: unknown, max: number, item: (x: unknown) => T, min = 0): T[] {
  if (!Array.isArray(v) || v.length > max || v.length < min) fail();
  const out = new Array<T>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = item(v[i]);
  return out;
}

export function nullable<T>(v: unknown, check: (x: unknown) => T): T | null {
  return v === null ? null : check(v);
}

/** Sets `out[key]` only when the input has the key: zod leaves an absent optional field absent. */
export function optional(out: Obj, input: Obj, key: string, check: (x: unknown) => unknown): void {
  if (!(key in input)) return;
  const v = input[key];
  // An explicit undefined (not from JSON) is kept as zod keeps it.
  out[key] = v === undefined ? undefined : check(v);
}

export const keys = (...names: string[]): ReadonlySet<string> => new Set(names);

export const isoTime = (v: unknown) => str(v, 64, 1);
