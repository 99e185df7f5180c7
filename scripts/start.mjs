// `npm start`: serves a real VS Code (code-server 4.100.3) on 127.0.0.1 with
// Paddock loaded in development mode on a scratch git repository, and prints
// the URL to open. Ctrl-C stops the server (agents keep running, as designed).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { provision, startCodeServer, workbenchUrl } from './lib/codeServer.mjs';
import { makeScratchRepo } from './lib/scratchRepo.mjs';

const root = resolve(import.meta.dirname, '..');
let server;

/** What went wrong, in one line: a newcomer's first command prints no stack trace (a failed tool's own output is already above). */
function fail(err) {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  console.error(`npm start: ${message}`);
  process.exit(1);
}

try {
  provision();
  const scratch = process.env.PADDOCK_START_DIR ?? mkdtempSync(join(tmpdir(), 'paddock-start-'));
  mkdirSync(scratch, { recursive: true });
  const workspace = makeScratchRepo(join(scratch, 'scratch-repo'));
  server = await startCodeServer({
    workspace,
    env: { PADDOCK_HOME: process.env.PADDOCK_HOME ?? join(scratch, 'store') },
    // Real agents (claude, codex, aider) are rarely installed on a fresh machine: the built-in
    // demo agent (resources/demo-agent.sh) is preselected, and Start Demo Agents shows every state.
    settings: {
      'paddock.defaultProfile': 'demo',
    },
    logFile: join(scratch, 'code-server.log'),
  });
  const url = workbenchUrl(server.url, { folder: workspace, extensionPath: root });
  console.log(`\nPaddock is running in VS Code at:\n\n  ${url}\n\nScratch repository: ${workspace}\nStore: ${join(scratch, 'store')}\nPress Ctrl-C to stop the server.\n`);
} catch (err) {
  // Nothing of a half-made start stays running.
  await server?.stop().catch(() => undefined);
  fail(err);
}
const shutdown = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
setInterval(() => undefined, 1 << 30);
