#!/usr/bin/env node
/**
 * The `paddock` command: dispatches to one CliCommand per verb. Exit status:
 * 0 done, 1 the operation failed, 2 bad usage or bad input — always with one
 * sentence on stderr, never a stack trace.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cliBundlePath } from '../core/common/bundles';
import { describeError, failure, PaddockError, usageError } from '../core/common/errors';
import { unsupportedPlatformMessage } from '../core/common/platform';
import { printable } from '../core/common/printable';
import { errorWords, reasonWords } from './support/errorWords';
import type { CliCommand, CliContext } from './command';
import type { CommandName } from './commandNames';
import { makePlacingPathsAbsolute } from './support/absolutePaths';
import { undecodableInput } from './support/undecodableInput';

/**
 * The verbs. Each command module is loaded only when its verb runs (or for
 * --help): `paddock list` must not pay for the coordinator, the worker
 * protocol, the terminal emulator or proper-lockfile at startup (measured:
 * loading every command first cost about as much as reading 1,000 records).
 * `require`, not `import()`: esbuild turns it into a lazy init in the bundle,
 * and it also resolves in the unbundled test build (out/).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const COMMANDS: Readonly<Record<CommandName, () => CliCommand>> = {
  start: () => (require('./commands/start') as typeof import('./commands/start')).startCommand,
  list: () => (require('./commands/list') as typeof import('./commands/list')).listCommand,
  show: () => (require('./commands/show') as typeof import('./commands/show')).showCommand,
  attach: () => (require('./commands/attach') as typeof import('./commands/attach')).attachCommand,
  send: () => (require('./commands/send') as typeof import('./commands/send')).sendCommand,
  screen: () => (require('./commands/screen') as typeof import('./commands/screen')).screenCommand,
  logs: () => (require('./commands/logs') as typeof import('./commands/logs')).logsCommand,
  stop: () => (require('./commands/stop') as typeof import('./commands/stop')).stopCommand,
  retry: () => (require('./commands/retry') as typeof import('./commands/retry')).retryCommand,
  cleanup: () => (require('./commands/cleanup') as typeof import('./commands/cleanup')).cleanupCommand,
  restore: () => (require('./commands/restore') as typeof import('./commands/restore')).restoreCommand,
  coordinate: () => (require('./commands/coordinate') as typeof import('./commands/coordinate')).coordinateCommand,
  signal: () => (require('./commands/signal') as typeof import('./commands/signal')).signalCommand,
  allow: () => (require('./commands/allow') as typeof import('./commands/allow')).allowCommand,
  merge: () => (require('./commands/merge') as typeof import('./commands/merge')).mergeCommand,
  update: () => (require('./commands/update') as typeof import('./commands/update')).updateCommand,
  apply: () => (require('./commands/apply') as typeof import('./commands/apply')).applyCommand,
  pr: () => (require('./commands/pr') as typeof import('./commands/pr')).prCommand,
  forget: () => (require('./commands/forget') as typeof import('./commands/forget')).forgetCommand,
  prune: () => (require('./commands/prune') as typeof import('./commands/prune')).pruneCommand,
  check: () => (require('./commands/check') as typeof import('./commands/check')).checkCommand,
  compare: () => (require('./commands/compare') as typeof import('./commands/compare')).compareCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */

export function helpText(): string {
  const commands = Object.values(COMMANDS).map((load) => load());
  const width = Math.max(...commands.map((c) => c.usage.length));
  const lines = commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    'Paddock runs coding agents in the background, each in its own git worktree.',
    '',
    'Usage:',
    ...lines,
    `  ${'paddock --version'.padEnd(width)}  Print the version.`,
    '',
    'Exit status: 0 done, 1 the operation failed, 2 bad usage or input.',
    'PADDOCK_HOME selects the store (default $XDG_STATE_HOME/paddock or ~/.local/state/paddock).',
    '',
  ].join('\n');
}

function sentence(text: string): string {
  const one = describeError(text, 1000);
  return /[.!?]$/.test(one) ? one : `${one}.`;
}

/**
 * The CLI's one error formatter: what `paddock <verb>` prints for anything a
 * command throws, and the exit status. A PaddockError is said as it is (its
 * kind decides 2 or 1); anything else is an unexpected failure, said in one
 * line (its stack only with PADDOCK_DEBUG). A file-system error, thrown or
 * copied into a message, is said in words naming the agent and the part of the
 * store that is damaged (or the path), never as Node's errno text (bug 50).
 */
export function errorReport(err: unknown, verb: string | undefined, env: NodeJS.ProcessEnv): { text: string; code: number } {
  const who = verb === undefined ? 'paddock' : `paddock ${printable(verb)}`;
  if (err instanceof PaddockError) {
    // An id that names no agent is bad input, like a malformed one.
    const code = err.kind === 'usage' || err.code === 'NOT_FOUND' ? 2 : 1;
    return { text: `${who}: ${printable(sentence(reasonWords(err.message, env)))}\n`, code };
  }
  const stack = env.PADDOCK_DEBUG && err instanceof Error && err.stack ? `${err.stack}\n` : '';
  return { text: `${who}: ${printable(sentence(errorWords(err, env)))}\n${stack}`, code: 1 };
}

/**
 * `paddock --version`: the version of the extension the CLI is part of, from its package.json (the
 * bundle is in its dist/ folder), so the CLI and the window it came with never disagree.
 */
function printVersion(ctx: CliContext): number {
  const manifest = path.join(path.dirname(cliBundlePath(ctx.env)), '..', 'package.json');
  try {
    const version: unknown = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version;
    if (typeof version !== 'string' || version === '') throw new Error(`${manifest} names no version`);
    ctx.io.stdout.write(`paddock ${printable(version)}\n`);
    return 0;
  } catch (err) {
    const report = errorReport(failure(`The version cannot be read from ${manifest}: ${describeError(err, 200)}`), undefined, ctx.env);
    ctx.io.stderr.write(report.text);
    return report.code;
  }
}

export async function runCli(argv: string[], ctx: CliContext, platform: NodeJS.Platform = process.platform): Promise<number> {
  const unsupported = unsupportedPlatformMessage(platform);
  if (unsupported) {
    ctx.io.stderr.write(`paddock: ${unsupported}\n`);
    return 1;
  }
  const [verb, ...rest] = argv;
  if (verb === undefined) {
    ctx.io.stderr.write(helpText());
    return 2;
  }
  if (verb === '--help' || verb === '-h' || verb === 'help') {
    ctx.io.stdout.write(helpText());
    return 0;
  }
  if (verb === '--version') return printVersion(ctx);
  const load = Object.hasOwn(COMMANDS, verb) ? COMMANDS[verb as CommandName] : undefined;
  if (!load) {
    const report = errorReport(usageError(`${verb.startsWith('-') ? 'unknown option' : 'unknown command'} '${verb}'; run paddock --help for the commands`), undefined, ctx.env);
    ctx.io.stderr.write(report.text);
    return report.code;
  }
  const beforeDashes = rest.indexOf('--') < 0 ? rest : rest.slice(0, rest.indexOf('--'));
  const command = load();
  if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
    ctx.io.stdout.write(`Usage: ${command.usage}\n${command.summary}\n`);
    return 0;
  }
  try {
    return await command.run(rest, ctx);
  } catch (err) {
    const report = errorReport(err, verb, ctx.env);
    ctx.io.stderr.write(report.text);
    return report.code;
  }
}

if (require.main === module) {
  // Before anything reads them: an argument or a store path Node misread from bytes that are not UTF-8.
  const misread = undecodableInput(process.argv.slice(2), process.env, process.cwd());
  if (misread !== undefined) {
    process.stderr.write(errorReport(usageError(misread), process.argv[2], process.env).text);
    process.exit(2);
  }
  makePlacingPathsAbsolute(process.env, process.cwd());
  // stderr and stdin on first use: opening one costs ~1.5 ms (a socket or a stream for a pipe), and
  // most commands write only to stdout and never read.
  let stderrOpened = false;
  const ctx: CliContext = {
    io: {
      stdout: process.stdout,
      get stderr() {
        // A failed write to stderr (its reader gone, a full disk) has nobody left to tell: the command goes
        // on and ends with its own status (coordinate's watch hears EPIPE, readerGone.ts). Unheard, the error
        // ended the CLI with a stack trace mid-operation.
        if (!stderrOpened) process.stderr.on('error', () => undefined);
        stderrOpened = true;
        return process.stderr;
      },
      get stdin() {
        return process.stdin;
      },
    },
    env: process.env,
    cwd: process.cwd(),
  };
  const verb = process.argv[2];
  // The status of a command that failed and said why: a lost output is then no second failure to say.
  let failedWith: number | undefined;
  const outputFailed = (err: Error): never => {
    // The reader went away (`paddock logs --follow | head -2`): what it did not read is not a failure.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(failedWith ?? 0);
    if (failedWith !== undefined) process.exit(failedWith);
    // A full disk, an I/O error: output was lost, so the command did not do what was asked.
    process.stderr.write(errorReport(new Error(`could not write the output: ${describeError(err)}`), verb, process.env).text);
    process.exit(1);
  };
  process.stdout.on('error', outputFailed);
  runCli(process.argv.slice(2), ctx).then(
    (code) => {
      process.exitCode = code;
      if (code !== 0) failedWith = code;
      // Commands that stream (attach, logs --follow, coordinate) end themselves; the rest should not linger
      // on handles. Exit only once stdout and stderr have drained: into a pipe, writes are asynchronous and
      // exiting earlier truncates the output (measured: `list --json` of 1,000 jobs cut at 400 KB).
      const exit = (): never => process.exit(code);
      process.stdout.write('', (err) => (err ? outputFailed(err) : stderrOpened ? process.stderr.write('', exit) : exit()));
    },
    (err) => {
      const report = errorReport(err, undefined, process.env);
      process.stderr.write(report.text);
      process.exit(report.code);
    },
  );
}
