/**
 * A port shortage looks at the ports ended agents hold without binding them, and tells an ended
 * agent's own leftover server (its cleanup ends it) from one it cannot vouch for (bug 183).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processBackend } from '../../../../src/core/proc/backend';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: no port block left, listeners on ended agents\' ports', function () {
  this.timeout(120_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function attempt(start: Promise<{ id: string }>): Promise<string> {
    return start.then(
      () => 'STARTED',
      (e: Error) => e.message.replace(/^Agent \S+ failed to start: /, ''),
    );
  }

  /** Until process `pid` no longer exists. */
  async function gone(pid: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`process ${pid} outlived its teardown`);
  }

  /**
   * A setup that leaves a server listening on PADDOCK_PORT in a session of its own (as `docker compose
   * up -d` would). The server writes its own pid to `pidFile` once it listens: `$!` names `setsid`,
   * which forks when it leads its process group, and a teardown killing that pid left the server running.
   */
  function serverSetup(pidFile: string, keepMarker: boolean): string {
    const listen = `require('net').createServer().listen(+process.env.PADDOCK_PORT,'127.0.0.1',()=>require('fs').writeFileSync('${pidFile}',String(process.pid)))`;
    const server = `${process.execPath} -e "${listen}"`;
    return `${keepMarker ? '' : 'env -u PADDOCK_JOB_ID '}setsid ${server} </dev/null >/dev/null 2>&1 & while [ ! -s ${pidFile} ]; do sleep 0.1; done`;
  }

  it("an ended agent's own leftover server (its marker) is its to end: the sentence says to clean it up, and that frees the block", async () => {
    const pidFile = join(sb.root, 'srv.pid');
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45460-45461', setup: serverSetup(pidFile, true) } });
    const ended = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(ended.id);
    const proven = processBackend().name === 'proc';
    assert.equal(
      await attempt(c.start({ repo: sb.repo, command: ['true'] })),
      proven
        ? `No block of 2 free ports is left in 45460-45461: clean up ended agents (${ended.id} holds ports in it) or widen paddock.worktree.portRange.`
        : `No block of 2 free ports is left in 45460-45461: clean up ended agents (${ended.id} holds ports in it; a program listens on 1 of them, which its cleanup may or may not end) or widen paddock.worktree.portRange.`,
    );
    await c.cleanup(ended.id);
    const next = await c.start({ repo: sb.repo, command: ['true'] });
    assert.deepEqual((await sb.store.read(next.id)).setup?.ports, [45460, 45461]);
  });

  it('a server without the marker on an ended agent\'s port is hedged, neither promised freed nor written off', async () => {
    const pidFile = join(sb.root, 'srv.pid');
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45462-45463', setup: serverSetup(pidFile, false), teardown: `kill $(cat ${pidFile})` } });
    try {
      const ended = await c.start({ repo: sb.repo, command: ['true'] });
      await sb.waitEnded(ended.id);
      assert.equal(
        await attempt(c.start({ repo: sb.repo, command: ['true'] })),
        `No block of 2 free ports is left in 45462-45463: clean up ended agents (${ended.id} holds ports in it; a program listens on 1 of them, which its cleanup may or may not end) or widen paddock.worktree.portRange.`,
      );
      // Here its teardown ends it: the cleanup did free the block, as the hedge allowed.
      await c.cleanup(ended.id);
      await gone(Number(readFileSync(pidFile, 'utf8'))); // the teardown's kill is only sent
      const next = await c.start({ repo: sb.repo, command: ['true'] });
      assert.deepEqual((await sb.store.read(next.id)).setup?.ports, [45462, 45463]);
    } finally {
      // Without the marker the fixture cannot find it: a failed check leaves no server behind.
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8')));
        } catch {
          // gone already: its teardown ended it
        }
      }
    }
  });

  it("a refused start never binds an ended agent's ports: a check binding one meanwhile is never refused", async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45470-45471' } });
    const ended = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(ended.id);
    // A Run Check's server on the agent's port, started again and again: counts the binds refused.
    const loop = `const net=require('net');let ok=0,refused=0,stop=false;process.on('SIGTERM',()=>stop=true);
      (function once(){if(stop){console.log(JSON.stringify({ok,refused}));process.exit(0)}const s=net.createServer();
      s.once('error',(e)=>{if(e.code==='EADDRINUSE')refused++;setImmediate(once)});
      s.listen({port:45471,host:'0.0.0.0'},()=>{if(ok++===0)console.error('up');s.close(()=>setImmediate(once))})})();`;
    const binder = spawn(process.execPath, ['-e', loop], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    binder.stdout.on('data', (d) => (out += d));
    await new Promise((resolve) => binder.stderr.once('data', resolve)); // its first bind: it runs
    const words = new Set<string>();
    try {
      for (let i = 0; i < 40; i++) words.add(await attempt(c.start({ repo: sb.repo, command: ['true'] })));
    } finally {
      binder.kill('SIGTERM');
      await new Promise((resolve) => binder.once('exit', resolve));
    }
    const counts = JSON.parse(out.trim()) as { ok: number; refused: number };
    assert.ok(counts.ok > 0, out);
    assert.equal(counts.refused, 0, `the check's bind was refused while starts were refused: ${out}`);
    // The check's server comes and goes: the sentence is hedged while it listens, but always names the agent.
    for (const w of words) assert.ok(w.startsWith(`No block of 2 free ports is left in 45470-45471: clean up ended agents (${ended.id} holds ports in it`), w);
  });
});
