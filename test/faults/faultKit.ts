import { createConnection } from 'node:net';
/**
 * Shared bits of the fault suites (test/unit/faults and test/faults): running
 * the real CLI bundle, listing a folder tree to prove nothing was touched,
 * root checks, and reading worker memory from /proc.
 */
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(process.cwd());
export const CLI = join(REPO_ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli.js ARGS` to completion with exactly `env` (plus PATH). */
export function cli(args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT, timeoutMs = 60_000): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, cwd, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `cli` without blocking the event loop (to run several at once). */
export function cliAsync(args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** path → "type size mtime mode" for every entry under `dir` (skipping `except`), to prove nothing changed. */
export function treeListing(dir: string, except: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (except.includes(p)) continue;
      const st = lstatSync(p);
      out[p] = `${st.isDirectory() ? 'd' : 'f'} ${st.isDirectory() ? 0 : st.size} ${st.mtimeMs} ${st.mode}`;
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** Every regular file under `dir`, contents concatenated with their paths (for "never on disk" checks). */
export function allFileContents(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      // Workers still ending remove their lock files while the walk runs: what vanished held nothing.
      try {
        const st = lstatSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) out.push({ path: p, text: readFileSync(p, 'latin1') });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  };
  walk(dir);
  return out;
}

/** Resident set size of a process in KiB (VmRSS), or undefined when it is gone. */
export function rssKiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ends every process started with `PADDOCK_HOME=home` in its environment (a
 * background `paddock coordinate --until-idle` a failed command left, a worker)
 * and waits until they are gone, so the test's folder can be deleted without a
 * process still writing into it. Linux only (/proc), as the suites that use it.
 * Not core/proc's findByEnvMarker: that one sees only this user's processes, by
 * design, and the permission suites run the CLI, its coordinator and workers as
 * another user (nobody), whose leftovers would then go on writing into the folder.
 */
export async function endProcessesOfHome(home: string, timeoutMs = 10_000): Promise<void> {
  const marker = `PADDOCK_HOME=${home}`;
  const holders = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(marker);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  for (const pid of holders) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (holders.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`processes of ${home} still alive: ${holders.filter(isAlive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Sends one payload on a fresh socket connection and resolves with everything received until the worker closes it. */
export function exchange(path: string, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`connection kept open; got ${got.slice(0, 200)}`));
    }, 5000);
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.once('connect', () => s.write(payload));
  });
}

/**
 * Skips the running test and says why: the suite runner prints the reason under the
 * test's line (mocha's own `skip()` takes none), so a skipped check is never silent.
 */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  if (ctx.test) (ctx.test as Mocha.Runnable & { skipReason?: string }).skipReason = reason;
  ctx.skip();
}
