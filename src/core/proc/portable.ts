/**
 * The portable backend: `ps` and `lsof`, as on macOS (where there is no /proc).
 * Runs on Linux too with PADDOCK_PROCESS_BACKEND=portable, so the tests prove it.
 * - start times from `ps -o lstart` (one-second resolution);
 * - the boot identity from `sysctl kern.boottime` on macOS, pid 1's start elsewhere;
 * - the environment marker from `ps` with environments (own processes only, all Paddock needs);
 * - holders from `lsof -d cwd` (every process's cwd) and `lsof +D` (open files below the folder).
 */
import { execFileSync } from 'node:child_process';
import type { Holder, ProcessBackend } from './backend';
import { isInside, MAX_HOLDER_COMMAND } from './procfs';
import { isGoneState, type ProcStat } from './procStat';
import { parseLsofNames, parsePsStat, pidsWithMarker, PS_STAT_COLUMNS } from './psParse';

const TOOL_TIMEOUT_MS = 10_000;

/** stdout of a tool; '' when it finds nothing (ps and lsof exit 1 then) or cannot run. */
function run(tool: string, args: string[]): string {
  try {
    return execFileSync(tool, args, {
      encoding: 'utf8',
      timeout: TOOL_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    });
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    return typeof out === 'string' ? out : '';
  }
}

let cachedBootId: string | undefined;

function bootId(): string {
  if (cachedBootId === undefined) {
    const text = process.platform === 'darwin' ? run('sysctl', ['-n', 'kern.boottime']) : run('ps', ['-o', 'lstart=', '-p', '1']);
    cachedBootId = text.trim().replace(/\s+/g, ' ') || 'unknown';
  }
  return cachedBootId;
}

function listProcesses(): ProcStat[] {
  return parsePsStat(run('ps', ['-A', '-o', PS_STAT_COLUMNS]));
}

function processStat(pid: number): ProcStat | undefined {
  return parsePsStat(run('ps', ['-o', PS_STAT_COLUMNS, '-p', String(pid)])).find((p) => p.pid === pid);
}

function findByEnvMarker(name: string, value: string): ProcStat[] {
  const uid = String(process.getuid?.() ?? '');
  const withEnv = process.platform === 'darwin' ? ['-E', '-ww', '-o', 'pid=,command='] : ['e', '-ww', '-o', 'pid=,command='];
  const output = run('ps', [...(uid ? ['-U', uid] : ['-A']), ...withEnv]);
  const pids = new Set(pidsWithMarker(output, name, value));
  if (pids.size === 0) return [];
  return listProcesses().filter((p) => pids.has(p.pid) && !isGoneState(p.state));
}

function commandLine(pid: number): string {
  return run('ps', ['-ww', '-o', 'args=', '-p', String(pid)]).trim();
}

function holdersOf(root: string): Holder[] {
  const names = [
    ...parseLsofNames(run('lsof', ['-n', '-P', '-w', '-d', 'cwd', '-F', 'pn'])),
    ...parseLsofNames(run('lsof', ['-n', '-P', '-w', '-F', 'pn', '+D', root])),
  ];
  const pids = [...new Set(names.filter((n) => n.pid !== process.pid && isInside(n.name, root)).map((n) => n.pid))].sort((a, b) => a - b);
  const out: Holder[] = [];
  for (const pid of pids) {
    const command = commandLine(pid);
    if (command === '') continue; // exited while we looked
    out.push({ pid, command: command.length > MAX_HOLDER_COMMAND ? `${command.slice(0, MAX_HOLDER_COMMAND - 1)}…` : command });
  }
  return out;
}

export const portableBackend: ProcessBackend = {
  name: 'portable',
  bootId,
  listProcesses,
  processStat,
  findByEnvMarker,
  commandLine,
  holdersOf,
};
