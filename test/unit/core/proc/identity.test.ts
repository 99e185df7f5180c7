import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const identityModule = path.resolve(__dirname, '../../../../src/core/proc/identity.js');

/**
 * Runs `body` in a fresh node process on `backend` with the identity module loaded as `identity`;
 * returns what it prints as JSON.
 */
function inChild(backend: 'proc' | 'portable', body: string): unknown {
  const script = `const identity = require(${JSON.stringify(identityModule)});\n${body}`;
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, PADDOCK_PROCESS_BACKEND: backend } });
  return JSON.parse(out);
}

describe('proc/identity', () => {
  for (const backend of ['proc', 'portable'] as const) {
    it(`judges this process alive without asking the system again (${backend} backend)`, () => {
      // With the system's tools out of reach (no PATH: no ps), only this process can still be judged:
      // the parent, asked about the same way, can no longer be seen. On the portable backend every
      // ask is a blocking ps run, and locks held in this process were asked about on every retry.
      const judged = inChild(
        backend,
        `const own = identity.ownIdentity();
         const parent = identity.identityOf(process.ppid);
         process.env.PATH = '/nonexistent';
         console.log(JSON.stringify({ own: identity.livenessOf(own), sameAgain: identity.ownIdentity() === own, parent: (() => { try { return identity.livenessOf(parent); } catch (err) { return 'look failed: ' + err.message; } })(), reused: (() => { try { return identity.livenessOf({ ...own, startTime: own.startTime + 1 }); } catch { return 'look failed'; } })() }));`,
      ) as Record<string, unknown>;
      assert.equal(judged.own, 'alive');
      assert.equal(judged.sameAgain, true, 'read once');
      // Without ps the parent cannot be seen, and that is said, never taken for its end (bug 190): the own answer did not come from ps.
      if (backend === 'portable') assert.match(String(judged.parent), /^look failed: Could not list the processes \(ps .*-p \d+\): .*ENOENT/);
      else assert.equal(judged.parent, 'alive', '/proc needs no PATH');
      assert.notEqual(judged.reused, 'alive', 'another start time at this pid is not this process');
    });
  }
});
