/**
 * The CLI's one argument parser. A command declares its usage line, options
 * and positional names once (`defineCommand`); its argv is parsed here with
 * node's parseArgs (strict) before the command runs, and every mistake is
 * said in one sentence ending with that usage line — a usage error, exit 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError, type PaddockError } from '../../core/common/errors';
import type { CliCommand, CliContext } from '../command';

type Options = NonNullable<ParseArgsConfig['options']>;

type ValueOf<T> = T extends { type: 'boolean' } ? (T extends { multiple: true } ? boolean[] : boolean) : T extends { multiple: true } ? string[] : string;

export type Values<O extends Options> = { [K in keyof O]?: ValueOf<O[K]> };

export interface ParsedArgs<O extends Options, P extends readonly string[]> {
  values: Values<O>;
  /** Exactly the positionals the spec names, in its order. */
  positionals: { [I in keyof P]: string };
  /** With `rest`: the words after the first `--` (undefined when there is no `--`). */
  rest: string[] | undefined;
  /** The optional last positional (spec `optional`), when given. */
  optional: string | undefined;
  /** A usage error that ends with this command's usage, for the checks the parser cannot make. */
  bad(what: string): PaddockError;
}

export interface CommandSpec<O extends Options, P extends readonly string[]> {
  name: string;
  /** One line, e.g. `paddock send ID TEXT`: shown by --help and in every usage error. */
  usage: string;
  summary: string;
  options: O;
  /** The names of the positionals, all required (e.g. `['ID', 'TEXT']`). */
  positionals: P;
  /** The name of one optional positional after the required ones. */
  optional?: string;
  /** Everything after the first `--` belongs to the command (`paddock start -- COMMAND ARGS`), not to the parser. */
  rest?: boolean;
  /** Options naming a folder (`--repo`, `--to`): an empty value is refused, not read as the current folder. */
  folders?: readonly (keyof O & string)[];
  run(args: ParsedArgs<O, P>, ctx: CliContext): Promise<number>;
}

/** A CLI command whose argv always goes through `parseCommandArgs` first. */
export function defineCommand<const O extends Options, const P extends readonly string[]>(spec: CommandSpec<O, P>): CliCommand {
  return {
    name: spec.name,
    usage: spec.usage,
    summary: spec.summary,
    run: (argv, ctx) => spec.run(parseCommandArgs(argv, spec), ctx),
  };
}

/** Node's parseArgs messages, cut to their first clause (the unknown-option one adds a second sentence). */
function firstClause(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // A value starting with a dash (`--older-than -1`): node's first line alone ("argument is ambiguous") does not say what to do.
  const dashed = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message);
  if (dashed) return `Option '${dashed[1]}' needs a value; one starting with '-' is written ${dashed[1]}=VALUE`;
  return message
    .split('\n')[0]
    .replace(/\. To specify a positional argument[\s\S]*$/, '')
    .replace(/\.$/, '');
}

export function parseCommandArgs<O extends Options, P extends readonly string[]>(
  argv: string[],
  spec: Pick<CommandSpec<O, P>, 'usage' | 'options' | 'positionals' | 'rest' | 'optional' | 'folders'>,
): ParsedArgs<O, P> {
  const bad = (what: string) => usageError(`${what}; usage: ${spec.usage}`);
  const dashes = spec.rest ? argv.indexOf('--') : -1;
  const own = dashes < 0 ? argv : argv.slice(0, dashes);
  let parsed: { values: unknown; positionals: string[] };
  try {
    parsed = parseArgs({ args: own, options: spec.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw bad(firstClause(err));
  }
  // `--repo "$DIR"` with DIR unset: path.resolve('') is the cwd, so it would start, allow or restore there.
  const values = parsed.values as Record<string, unknown>;
  for (const name of spec.folders ?? []) if (values[name] === '') throw bad(`--${name} needs a folder, not an empty string`);
  const names = spec.positionals;
  const given = parsed.positionals;
  if (given.length < names.length) throw bad(`Missing ${names[given.length]}`);
  const allowed = names.length + (spec.optional ? 1 : 0);
  if (given.length > allowed) throw bad(`Unexpected argument '${given[allowed]}'`);
  return {
    values: parsed.values as Values<O>,
    positionals: given.slice(0, names.length) as { [I in keyof P]: string },
    optional: given[names.length],
    rest: dashes < 0 ? undefined : argv.slice(dashes + 1),
    bad,
  };
}

/**
 * An option's value as a plain decimal number, 0 or more (`30`, `0.5`), or undefined for anything
 * else. `Number()` would read '' and ' ' as 0 and '0x10' as 16: `prune --older-than "$DAYS"` with
 * DAYS unset would forget every cleaned agent.
 */
export function plainDecimal(text: string): number | undefined {
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}
