/**
 * The decisions a landing needs (a running agent; uncommitted work in its
 * worktree) as flags, and — on a terminal, when a flag was not given — as a
 * question asked when the operation says it needs the decision.
 */
import { createInterface } from 'node:readline';
import { failure, PaddockError } from '../../core/common/errors';
import { RUNNING_CHOICE_CODE, UNCOMMITTED_CHOICE_CODE, type LandingChoices } from '../../core/operations/landingPrep';
import type { CliContext } from '../command';

export const LANDING_CHOICE_OPTIONS = {
  'commit-uncommitted': { type: 'boolean' },
  'commits-only': { type: 'boolean' },
  'stop-first': { type: 'boolean' },
  'while-running': { type: 'boolean' },
} as const;

export const LANDING_CHOICE_USAGE = '[--commit-uncommitted|--commits-only] [--stop-first|--while-running]';

type ChoiceValues = { [K in keyof typeof LANDING_CHOICE_OPTIONS]?: boolean };

export function choicesFrom(values: ChoiceValues, bad: (what: string) => PaddockError): LandingChoices {
  if (values['commit-uncommitted'] && values['commits-only']) throw bad('--commit-uncommitted and --commits-only exclude each other');
  if (values['stop-first'] && values['while-running']) throw bad('--stop-first and --while-running exclude each other');
  return {
    uncommitted: values['commit-uncommitted'] ? 'commit' : values['commits-only'] ? 'commits-only' : undefined,
    running: values['stop-first'] ? 'stop' : values['while-running'] ? 'as-is' : undefined,
  };
}

/** One line from stdin after a question on stderr; '' at end of input. */
export async function ask(ctx: CliContext, question: string): Promise<string> {
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: false });
  try {
    ctx.io.stderr.write(question);
    return await new Promise<string>((resolve) => {
      rl.once('line', (l) => resolve(l.trim()));
      rl.once('close', () => resolve(''));
    });
  } finally {
    rl.close();
  }
}

/**
 * Runs `attempt` with the choices; when it stops for a decision that was not
 * given and stdin is a terminal, asks and tries again (nothing was changed by the attempt that stopped).
 */
export async function withLandingChoices<T>(ctx: CliContext, choices: LandingChoices, attempt: (c: LandingChoices) => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt(choices);
    } catch (err) {
      if (!(err instanceof PaddockError) || !ctx.io.stdin.isTTY) throw err;
      if (err.code === RUNNING_CHOICE_CODE && choices.running === undefined) {
        const a = await ask(ctx, `${err.message.replace(/;.*$/, '.')} Stop it first (s), land what is there now (l), or cancel (c)? [s/l/C] `);
        if (/^s/i.test(a)) choices = { ...choices, running: 'stop' };
        else if (/^l/i.test(a)) choices = { ...choices, running: 'as-is' };
        else throw failure('Nothing was changed.');
      } else if (err.code === UNCOMMITTED_CHOICE_CODE && choices.uncommitted === undefined) {
        const a = await ask(ctx, `${err.message.replace(/;.*$/, '.')} Commit them first (c), land only the commits (o), or cancel (n)? [c/o/N] `);
        if (/^c/i.test(a)) choices = { ...choices, uncommitted: 'commit' };
        else if (/^o/i.test(a)) choices = { ...choices, uncommitted: 'commits-only' };
        else throw failure('Nothing was changed.');
      } else {
        throw err;
      }
    }
  }
}
