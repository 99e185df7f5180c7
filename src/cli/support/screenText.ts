/**
 * The terminal emulator the CLI replays a live screen in (`paddock screen`, and the size notice of
 * `paddock attach`), loaded only when one is needed: every other command starts without it. In the
 * bundled CLI this is a file of its own (`dist/screenText.js`, esbuild.config.mjs).
 */
export function loadScreenText(): typeof import('../../core/protocol/screenText') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../core/protocol/screenText') as typeof import('../../core/protocol/screenText');
}
