/**
 * Starting the agent in a pseudoterminal. node-pty is loaded at run time: from
 * the path the extension passes (VS Code's own copy, built for Electron) or
 * from the package's dependency.
 */
import { constants } from 'node:os';
import type * as NodePty from 'node-pty';
import { describeError, failure } from '../common/errors';
import { readProcStatAsync } from '../proc';
import type { DrainMarker } from './drain';
import type { JobRecord } from '../store/schema';
import { agentCommandEnv, type AgentOwnEnv } from './agentEnv';
import type { ExitInfo } from './session';

export type PtyModule = typeof NodePty;
export type Pty = NodePty.IPty;

export function loadNodePty(modulePath?: string): PtyModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return modulePath ? require(modulePath) : require('node-pty');
  } catch (err) {
    throw failure(nodePtyUnavailable(err, modulePath));
  }
}

/**
 * The one sentence for a node-pty that does not load: none found (VS Code moved
 * or dropped its copy) or one built for another runtime (NODE_MODULE_VERSION).
 */
export function nodePtyUnavailable(err: unknown, modulePath?: string): string {
  const runtime = process.versions.electron ? `Electron ${process.versions.electron} (Node ${process.versions.node})` : `Node ${process.versions.node}`;
  const reason = describeError(err, 300).replace(/\s*Require stack:.*$/, '').replace(/\.$/, '');
  return `No node-pty loads for this runtime, ${runtime}, so the agent cannot get a terminal (${modulePath ?? 'node-pty'}: ${reason}).`;
}

/** The agent's environment (`agentCommandEnv`), with the terminal its PTY is. */
export function buildAgentEnv(base: NodeJS.ProcessEnv, job: JobRecord, own: AgentOwnEnv): Record<string, string> {
  const env = agentCommandEnv(base, job, own);
  env.TERM = env.TERM && env.TERM !== 'dumb' ? env.TERM : 'xterm-256color';
  return env;
}

export interface SpawnAgentOptions {
  pty: PtyModule;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** Keeps the terminal open until the worker read everything (see drain.ts). */
  drain: DrainMarker;
}

export function spawnAgent(opts: SpawnAgentOptions): Pty {
  const { file, args } = opts.drain.wrap(opts.command);
  return opts.pty.spawn(file, args, {
    name: opts.env.TERM,
    cols: opts.cols,
    rows: opts.rows,
    cwd: opts.cwd,
    env: opts.env,
    // Raw bytes: the log keeps exactly what the agent wrote; decoding happens once, in the worker.
    encoding: null,
  });
}

/** The PTY master's descriptor: node-pty's Unix terminal has it, its typings do not. */
export function ptyMasterFd(pty: Pty): number {
  const fd = (pty as Pty & { fd?: unknown }).fd;
  if (typeof fd !== 'number') throw failure('This node-pty gives no PTY descriptor to write the agent\'s input to.');
  return fd;
}

/**
 * After a resize: the kernel signals the PTY's foreground group on a size change; an explicit
 * SIGWINCH to that group makes sure it redraws (abduco's trick). The group is read without
 * blocking: on the portable backend it is a `ps` run, and a window dragged wider resizes many
 * times a second while the worker relays the agent's output.
 */
export async function nudgeForegroundGroup(sessionPid: number): Promise<void> {
  const fg = (await readProcStatAsync(sessionPid).catch(() => undefined))?.tpgid; // a failed look: no nudge this time
  if (!fg || fg <= 1) return;
  try {
    process.kill(-fg, 'SIGWINCH');
  } catch {
    // the group just went away
  }
}

/** After the PTY reports exit, output may still trickle in: the exit is final after this much silence. */
const EXIT_QUIET_MS = 60;
const EXIT_QUIET_MAX_MS = 2000;

/**
 * Resolves once the agent's output has been silent for a moment (node-pty can report the exit
 * before its last reads), or after two seconds of steady output at the latest.
 */
export async function outputQuiet(lastDataAt: () => number): Promise<void> {
  const deadline = Date.now() + EXIT_QUIET_MAX_MS;
  while (Date.now() < deadline && Date.now() - lastDataAt() < EXIT_QUIET_MS) await new Promise<void>((r) => setTimeout(r, EXIT_QUIET_MS / 2));
}

/** How the agent ended, from node-pty's exit event (a signal number, or the wrapper shell's exit code). */
export function exitInfoOf(code: number, signal: number): ExitInfo {
  if (signal) return { code: null, signal: signalName(signal) ?? `signal ${signal}` };
  const d = describeExit(code);
  return { code: d.exitCode, signal: d.signal };
}

/** The record's detail for an agent that ended by itself: "exit 0", "exit 2", "killed by SIGSEGV". */
export function endDetail(info: ExitInfo): string {
  if (info.signal) return `killed by ${info.signal}`;
  return `exit ${info.code}`;
}

/** 128 + n from the wrapper shell means the agent died of signal n. */
export function describeExit(code: number): { exitCode: number; signal: string | null } {
  if (code > 128 && code < 128 + 65) {
    const name = signalName(code - 128);
    if (name) return { exitCode: code, signal: name };
  }
  return { exitCode: code, signal: null };
}

function signalName(n: number): string | null {
  for (const [name, num] of Object.entries(constants.signals)) if (num === n) return name;
  return null;
}
