/**
 * The building blocks of the hand-written record check (`recordCheck.ts` and its parts):
 * each checks one value as the matching zod schema would and returns it, or
 * throws REJECT, caught once at the top, when it does not pass. Nothing is
 * copied and no closure is made per value: `paddock list` runs these over every
 * record, in a process too short-lived for the optimizer to remove either.
 */
import { isIsoTime } from './agentClaims';

export type Obj = Record<string, unknown>;

/** Thrown inside the check when a value does not pass; caught once at the top. */
export const REJECT = Symbol('reject');

export function fail(): never {
  throw REJECT;
}

/** The value itself when `check` passes it; undefined when it does not (then zod decides, and says why). */
export function accepted(value: unknown, check: (v: unknown) => Obj): Obj | undefined {
  try {
    return check(value);
  } catch (err) {
    if (err === REJECT) return undefined;
    throw err;
  }
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
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) fail();
  return v as number;
}

export function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') fail();
  return v;
}

export function oneOf<T extends string>(v: unknown, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) fail();
  return v as T;
}

export function isoTime(v: unknown): string {
  if (!isIsoTime(str(v, 64, 1))) fail();
  return v as string;
}

/** An array of at most `max` items (at least `min`), each passing `item`. */
export function arr(v: unknown, max: number, item: (x: unknown) => unknown, min = 0): unknown[] {
  if (!Array.isArray(v) || v.length > max || v.length < min) fail();
  for (let i = 0; i < v.length; i++) item(v[i]);
  return v;
}

/** An array of strings: at most `max` items (at least `min`), each at most `maxLength` long. */
export function strArr(v: unknown, max: number, maxLength: number, min = 0): string[] {
  if (!Array.isArray(v) || v.length > max || v.length < min) fail();
  for (let i = 0; i < v.length; i++) str(v[i], maxLength);
  return v as string[];
}

export function nullable(v: unknown, check: (x: unknown) => unknown): unknown {
  if (v !== null) check(v);
  return v;
}

export function strOrNull(v: unknown, max: number): string | null {
  return v === null ? null : str(v, max);
}

export function intOrNull(v: unknown, min = -Infinity, max = Infinity): number | null {
  return v === null ? null : int(v, min, max);
}

export function numOrNull(v: unknown, min = -Infinity, max = Infinity): number | null {
  return v === null ? null : num(v, min, max);
}

export function shaOrNull(v: unknown): string | null {
  return v === null ? null : strMatch(v, SHA);
}

export function timeOrNull(v: unknown): string | null {
  return v === null ? null : isoTime(v);
}

/**
 * An optional field: checked when the input has it. zod leaves an absent
 * optional field absent, and keeps an explicit undefined (never from JSON).
 */
export function optional(input: Obj, key: string, check: (x: unknown) => unknown): void {
  // An absent key reads as undefined: one lookup answers both.
  const v = input[key];
  if (v !== undefined) check(v);
}

export const keys = (...names: string[]): ReadonlySet<string> => new Set(names);
