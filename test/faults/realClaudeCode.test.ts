/**
 * The real Claude Code from the npm registry (2.1.197, the last release that
 * runs on Node 20), started through Paddock's built-in `claude` profile with a
 * fresh HOME (no credentials: it shows its first screen — welcome, login, or
 * "unable to connect" where the API is out of reach). Checked: the process
 * Claude Code really runs as got the hooks' `--settings` (read from
 * /proc/<pid>/cmdline), and its screen reaches `paddock screen`.
 *
 * The install is cached in ~/.cache/paddock-test; when it cannot be made
 * (offline, registry down, a platform without its binary) the test skips
 * itself and the runner prints why.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_SIGNAL_SETTINGS } from '../../src/core/profiles/builtins';
import { findByEnvMarker } from '../../src/core/proc';
import { CoordinatorSandbox, sleep, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { cli, skipBecause } from './faultKit';

const VERSION = '2.1.197';
const PACKAGE = `@anthropic-ai/claude-code@${VERSION}`;
const CACHE = join(homedir(), '.cache', 'paddock-test', `claude-code-${VERSION}`);
const INSTALL_TIMEOUT_MS = 240_000;

/** The `claude` program of the cached install, installing it first; a string starting with "skip:" says why not. */
async function claudeBin(): Promise<{ bin: string } | { skip: string }> {
  const bin = join(CACHE, 'node_modules', '.bin', 'claude');
  if (!existsSync(bin)) {
    // Into a fresh folder renamed at the end: an interrupted install never counts as cached.
    const partial = `${CACHE}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const result = await run(
      'npm',
      ['install', '--prefix', partial, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', '--fetch-retries=0', '--fetch-timeout=60000', PACKAGE],
      INSTALL_TIMEOUT_MS,
    );
    if (result.timedOut || result.code !== 0 || !existsSync(join(partial, 'node_modules', '.bin', 'claude'))) {
      rmSync(partial, { recursive: true, force: true });
      const why = result.timedOut ? `timed out after ${INSTALL_TIMEOUT_MS / 1000} s` : `exit ${result.code}: ${npmReason(result.output)}`;
      return { skip: `npm install ${PACKAGE} failed (${why}); offline or the registry is out of reach` };
    }
    rmSync(CACHE, { recursive: true, force: true });
    renameSync(partial, CACHE);
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0 || !version.stdout.includes(VERSION)) {
    return { skip: `the installed claude does not run here (${lastLine(`${version.stdout}${version.stderr}`) || version.error?.message || `exit ${version.status}`})` };
  }
  return { bin };
}

function run(program: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    // Not the settings of an `npm run` this suite may run under (its prefix, its script's cwd); a registry mirror stays.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_registry$/i.test(k)));
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: err.message, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** npm's first error lines (its code and message), without the pointer to its log file. */
function npmReason(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !/complete log of this run/.test(l));
  return lines.slice(0, 2).join(' ').slice(0, 300);
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.slice(0, 300) ?? '';
}

function argvOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

describe('faults: the real Claude Code from the registry', function () {
  this.timeout(INSTALL_TIMEOUT_MS + 120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it(`Claude Code ${VERSION} runs with the hooks' --settings and draws its first screen`, async function () {
    if (process.platform !== 'linux') skipBecause(this, 'reads the agent\'s argv from /proc (Linux only)');
    const found = await claudeBin();
    if ('skip' in found) skipBecause(this, found.skip);
    const home = join(sb.root, 'claude-home');
    mkdirSync(home);
    // A HOME of its own: no credentials, no settings of the person's; the cached program first on PATH.
    sb.env.HOME = home;
    sb.env.PATH = `${join(CACHE, 'node_modules', '.bin')}:${sb.env.PATH}`;
    const started = cli(['start', '--repo', sb.repo, '--profile', 'claude'], sb.env, sb.repo);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();

    // The process that is Claude Code (the worker may wrap it in a shell): its own argv carries the hooks.
    let argv: string[] | undefined;
    const deadline = Date.now() + 30_000;
    while (!argv && Date.now() < deadline) {
      for (const p of findByEnvMarker('PADDOCK_JOB_ID', id)) {
        const a = argvOf(p.pid);
        if (a && a.some((x) => x.endsWith('claude') || x.endsWith('claude.exe')) && a.includes('--settings')) argv = a;
      }
      if (!argv) await sleep(10);
    }
    assert.ok(argv, 'a claude process with --settings ran under the agent');
    const settings = JSON.parse(argv[argv.indexOf('--settings') + 1]);
    assert.deepEqual(settings, JSON.parse(CLAUDE_SIGNAL_SETTINGS));
    assert.equal(settings.hooks.Notification[0].hooks[0].command, 'paddock signal waiting');

    // Its first screen, through `paddock screen` (live, or the final screen if it gave up on the network).
    let screen = '';
    const drawn = Date.now() + 60_000;
    while (!/Claude Code/.test(screen) && Date.now() < drawn) {
      screen = cli(['screen', id], sb.env, sb.repo).stdout;
      if (!/Claude Code/.test(screen)) await sleep(250);
    }
    assert.match(screen, /Claude Code/, `paddock screen showed:\n${screen}`);
    cli(['stop', id, '--force'], sb.env, sb.repo);
  });
});
