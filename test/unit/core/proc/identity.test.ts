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
         console.log(JSON.stringify({ own: identity.livenessOf(own), sameAgain: identity.ownIdentity() === own, parent: identity.livenessOf(parent), reused: identity.livenessOf({ ...own, startTime: own.startTime + 1 }) }));`,
      ) as Record<string, unknown>;
      assert.equal(judged.own, 'alive');
      assert.equal(judged.sameAgain, true, 'read once');
      if (backend === 'portable') assert.equal(judged.parent, 'dead', 'without ps the parent cannot be seen: the own answer did not come from ps');
      else assert.equal(judged.parent, 'alive', '/proc needs no PATH');
      assert.notEqual(judged.reused, 'alive', 'another start time at this pid is not this process');
    });

    it(`judges a process recorded in another pid namespace of this boot "elsewhere", never gone (${backend} backend)`, function () {
      // Bug 109: seen from another pid namespace (a sandboxed window, a container sharing the store), a
      // live worker's pid named nothing there and was judged dead: its running agent was orphaned.
      if (!namespacesWork()) this.skip(); // unshare --pid needs root (or user namespaces)
      const me = inChild(backend, 'console.log(JSON.stringify(identity.ownIdentity()))') as { pid: number; startTime: number; bootId: string };
      const script = `const identity = require(${JSON.stringify(identityModule)});
        const me = ${JSON.stringify(me)};
        console.log(JSON.stringify({ me: identity.livenessOf(me), otherBoot: identity.livenessOf({ ...me, bootId: 'another boot' }), own: identity.ownIdentity() }));`;
      const out = execFileSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, PADDOCK_PROCESS_BACKEND: backend },
      });
      const judged = JSON.parse(out) as { me: string; otherBoot: string; own: { bootId: string } };
      assert.equal(judged.me, 'elsewhere');
      assert.equal(judged.otherBoot, 'reused', 'another boot is still gone');
      assert.notEqual(judged.own.bootId, me.bootId, 'an identity names its pid namespace');
      assert.ok(judged.own.bootId.startsWith(me.bootId), judged.own.bootId);
    });
  }
});

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
