// One bundle per entry point: the extension (loaded by VS Code), the worker
// (a detached process per agent) and the CLI. `vscode` is provided by the host;
// `node-pty` is native and resolved at run time (VS Code's own copy for workers
// spawned by the extension, the package's dependency otherwise).
import * as esbuild from 'esbuild';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const entries = [
  { in: 'src/extension.ts', out: 'extension' },
  // The worker is dist/worker.js, the same kind of loader for dist/workerMain.js (src/core/worker/bin.ts).
  { in: 'src/core/worker/bin.ts', out: 'worker' },
  { in: 'src/core/worker/main.ts', out: 'workerMain' },
  // `paddock` is dist/cli.js, a small loader that runs dist/cliMain.js with V8's code cache (src/core/common/codeCache.ts).
  { in: 'src/cli/bin.ts', out: 'cli' },
  { in: 'src/cli/main.ts', out: 'cliMain' },
  // The CLI's terminal emulator, a file of its own (see `screenTextApart`).
  { in: 'src/core/protocol/screenText.ts', out: 'screenText' },
].filter((e) => existsSync(e.in));

/** Prints each bundle's size and its largest inputs, from the metafile. */
const sizeReport = {
  name: 'size-report',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      for (const [file, info] of Object.entries(result.metafile.outputs)) {
        if (file.endsWith('.map')) continue;
        const top = Object.entries(info.inputs)
          .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
          .slice(0, 3)
          .map(([name, i]) => `${name.replace(/^node_modules\//, '')} ${(i.bytesInOutput / 1024).toFixed(1)} KB`)
          .join(', ');
        console.log(`[build] ${file} ${(info.bytes / 1024).toFixed(1)} KB  (largest: ${top})`);
      }
    });
  },
};

/**
 * zod re-exports all of its ~60 locales as a namespace, which no bundler can
 * tree-shake (260 KB minified). Paddock's messages are English: keep `en` only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales'), namespace: 'zod-locales' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: args.path,
      loader: 'js',
    }));
  },
};

/**
 * The CLI loads the terminal emulator (xterm, ~180 KB) only for `paddock screen`
 * of a live agent. A CommonJS bundle cannot be split, so the CLI's lazy `require`
 * of screenText stays a `require` of the separate `dist/screenText.js`: every
 * other command starts without parsing or running it. The worker, which always
 * needs xterm, keeps it inside its own bundle.
 */
const screenTextApart = {
  name: 'screen-text-apart',
  setup(build) {
    build.onResolve({ filter: /[\\/]protocol[\\/]screenText$/ }, (args) => {
      if (!/[\\/]src[\\/]cli[\\/]/.test(args.importer)) return undefined;
      if (args.kind !== 'require-call') throw new Error(`${args.importer} must load screenText lazily (require inside the function that needs it)`);
      return { path: './screenText.js', external: true };
    });
  },
};

/**
 * proper-lockfile's default file system is graceful-fs, which on load patches Node's own `fs.close`
 * and `fs.closeSync` — in the extension host, the `fs` module every extension shares. Paddock hands
 * proper-lockfile its own file system on every call (src/core/store/lockfileModule.ts), so graceful-fs
 * would only be loaded, never used: it resolves to Node's `fs` (and ~10 KB leave each bundle).
 */
const noGracefulFs = {
  name: 'no-graceful-fs',
  setup(build) {
    build.onResolve({ filter: /^graceful-fs$/ }, (args) => {
      if (!/[\\/]proper-lockfile[\\/]/.test(args.importer)) throw new Error(`${args.importer} requires graceful-fs: only proper-lockfile, given its own fs, may`);
      return { path: 'graceful-fs', namespace: 'node-fs' };
    });
    build.onLoad({ filter: /.*/, namespace: 'node-fs' }, () => ({ contents: 'module.exports = require("node:fs");', loader: 'js' }));
  },
};

/**
 * `import * as fs from 'node:fs'` bundles as `__toESM(require('node:fs'))`, which copies every
 * property of the module into a new object, once per importing module (the extension's 54 copies
 * of the `vscode` API object alike). A Node built-in or the host's `vscode` needs no interop
 * object: its namespace import becomes the module itself (`const fs = require('node:fs')`), the
 * same functions. Measured (same machine, medians of 21): an empty `paddock list` 125 → 113 ms,
 * against `node -e ''` at 94 ms — a third of what the CLI's own start cost.
 */
const NAMESPACE_IMPORT_OF_BUILTIN = /^import \* as (\w+) from '(node:[\w/]+|vscode)';$/gm;
const builtinNamespacesAsRequire = {
  name: 'builtin-namespaces-as-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replace(NAMESPACE_IMPORT_OF_BUILTIN, "const $1 = require('$2');"), loader: 'ts' };
    });
  },
};

/** The CLI is a `bin`: give it a shebang-friendly mode after each build. */
const executableCli = {
  name: 'executable-cli',
  setup(build) {
    build.onEnd(() => {
      if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
    });
  },
};

const options = {
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode', 'node-pty'],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  plugins: [zodEnglishOnly, noGracefulFs, screenTextApart, builtinNamespacesAsRequire, sizeReport, executableCli],
  banner: { js: '' },
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('[build] watching for changes');
} else {
  const result = await esbuild.build(options);
  writeFileSync('dist/meta.json', JSON.stringify(result.metafile));
  if (result.warnings.length) console.log(`[build] ${result.warnings.length} warning(s) above`);
}
