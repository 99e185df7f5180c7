// Paddock's own client and store, bundled from src for the bench process, so
// the viewer side of every figure is the real WorkerClient (framing, zod
// validation and all), exactly as the CLI and the extension use it.
import * as esbuild from 'esbuild';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, tempDir } from './env.mjs';

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
      `export { sampleAndRecordUsage } from ${JSON.stringify(join(root, 'src/core/operations/recordUsage.ts'))};\n`,
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

/** node-pty, the project's own dependency (what the CLI's workers load). */
export function nodePty() {
  return createRequire(join(root, 'package.json'))('node-pty');
}
