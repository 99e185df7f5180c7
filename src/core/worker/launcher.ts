/**
 * The `paddock` command inside an agent: hooks (Claude Code's, Codex's
 * `notify`) run `paddock signal waiting|running`, and the person never has to
 * install anything for that. The worker writes a small launcher into the job
 * folder — the same runtime and CLI bundle as the worker, the same store — and
 * puts its folder first on the agent's PATH.
 */
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { cliBundlePath } from '../common/bundles';
import { describeError } from '../common/errors';
import { launcherScript } from '../launcher/launcherScript';
import { makeDirsSync } from '../common/makeDirs';

/** Writes `<jobDir>/bin/paddock`; returns its folder, or null when there is no CLI bundle to launch. */
export function writeLauncher(jobDir: string, home: string, env: NodeJS.ProcessEnv): string | null {
  const cli = cliBundlePath(env);
  if (!existsSync(cli)) return null;
  const bin = path.join(jobDir, 'bin');
  makeDirsSync(bin, 0o700);
  const script = launcherScript({
    execPath: process.execPath,
    cliScript: cli,
    home,
    purpose: 'Written by the Paddock worker of this agent: the paddock CLI with the same runtime and store.',
  });
  writeFileSync(path.join(bin, 'paddock'), script, { mode: 0o700 });
  return bin;
}

/** PATH with `dir` first. */
export function prependPath(env: Record<string, string>, dir: string): void {
  env.PATH = env.PATH ? `${dir}${path.delimiter}${env.PATH}` : dir;
}

/** Puts the launcher first on the agent's PATH; without it (logged), hooks need a `paddock` of their own on PATH. */
export function putLauncherOnPath(agentEnv: Record<string, string>, jobDir: string, home: string, env: NodeJS.ProcessEnv, log: (message: string) => void): void {
  try {
    const bin = writeLauncher(jobDir, home, env);
    if (bin) prependPath(agentEnv, bin);
  } catch (err) {
    log(`could not write the paddock launcher: ${describeError(err)}`);
  }
}
