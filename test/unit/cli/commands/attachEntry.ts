/**
 * A tiny program that runs the compiled `attach` command as `paddock attach` would, for tests that
 * start it in a real terminal (a tmux pane, a node-pty): the bundle is not what these tests measure.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ATTACH_MODULE = join(__dirname, '../../../../src/cli/commands/attach.js');

/** Writes the program in a folder of its own and returns its path. */
export function writeAttachEntry(): string {
  const entry = join(mkdtempSync(join(tmpdir(), 'pdk-attach-')), 'attach.js');
  writeFileSync(
    entry,
    `require(${JSON.stringify(ATTACH_MODULE)}).attachCommand.run(process.argv.slice(2), { io: process, env: process.env, cwd: process.cwd() })` +
      `.then((c) => process.exit(c), (e) => { process.stderr.write(e.message + '\\n'); process.exit(e.kind === 'usage' ? 2 : 1); });\n`,
  );
  return entry;
}
