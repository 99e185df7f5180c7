// Paddock's own client and store, bundled from src for the bench process, so
// the viewer side of every figure is the real WorkerClient (framing, zod
// validation and all), exactly as the CLI and the extension use it.
import * as esbuild from 'esbuild';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { distRoot, root, tempDir } from './env.mjs';

let loaded;

export async function loadCore() {
  if (loaded) return loaded;
  const dir = tempDir('core');
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `export { WorkerClient } from ${JSON.stringify(join(root, 'src/core/protocol/client.ts'))};\n` +
      `export { JobStore } from ${JSON.stringify(join(root, 'src/core/store/index.ts'))};\n` +
      `export { UsageSampler } from ${JSON.stringify(join(root, 'src/core/usage/sampler.ts'))};\n` +
      `export { sampleAndRecordUsage } from ${JSON.stringify(join(root, 'src/core/operations/recordUsage.ts'))};\n` +
      `export { Coordinator } from ${JSON.stringify(join(root, 'src/core/coordinator/index.ts'))};\n`,
  );
  const outfile = join(dir, 'core.cjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['node-pty'],
    minify: true,
    logLevel: 'warning',
    absWorkingDir: root,
  });
  loaded = createRequire(import.meta.url)(outfile);
  return loaded;
}

/**
 * Runs `op` on a coordinator set up as a window's (src/ui/paddockExtension.ts)
 * but without its loop, and returns how long `op` took: what the operation
 * costs a window whose coordinator is already running — no process start, no
 * bundle load. The coordinator is made before the clock starts and disposed
 * after it stops, so it never keeps the leader lease from the CLI's next start.
 */
export async function timedInWindow(pe, op) {
  const { Coordinator, JobStore } = await loadCore();
  const coordinator = new Coordinator({
    store: new JobStore({ home: pe.home }),
    workerScript: join(distRoot, 'dist', 'worker.js'),
    env: pe.env,
    tickMs: 0,
    watch: false,
    log: () => undefined,
  });
  try {
    const t0 = performance.now();
    const result = await op(coordinator);
    return { ms: performance.now() - t0, result };
  } finally {
    coordinator.dispose();
    await coordinator.whenIdle();
  }
}

/** node-pty, the project's own dependency (what the CLI's workers load). */
export function nodePty() {
  return createRequire(join(root, 'package.json'))('node-pty');
}
