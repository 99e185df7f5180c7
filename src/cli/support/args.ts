/**
 * Strict argument parsing for CLI commands: node's parseArgs, with its errors
 * turned into one usage sentence (exit 2).
 */
import { parseArgs, ParseArgsConfig } from 'node:util';
import { usageError } from '../../core/common/errors';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/** Parses `argv`; `usage` is appended to any error so the person sees the right form. */
export function parseCommandArgs<O extends Options>(argv: string[], options: O, usage: string): Parsed<O> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Parsed<O>['values'], positionals };
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0].replace(/\.$/, '');
    throw usageError(`${message}; usage: ${usage}`);
  }
}

/** Exactly `names.length` positionals, named in the error. */
export function expectPositionals(positionals: string[], names: string[], usage: string): string[] {
  if (positionals.length < names.length) throw usageError(`Missing ${names[positionals.length]}; usage: ${usage}`);
  if (positionals.length > names.length) throw usageError(`Unexpected argument '${positionals[names.length]}'; usage: ${usage}`);
  return positionals;
}
