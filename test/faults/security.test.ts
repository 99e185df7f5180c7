/**
 * Fault cases 11, 14 and 15 with real workers: a token of another job, a wrong
 * or missing token change nothing and are never echoed or logged; socket
 * directories are private and a loose or foreign one is refused; secret
 * values an agent prints never reach any file of the store.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Coordinator } from '../../src/core/coordinator';
import { CoordinatorSandbox, useCoordinatorSandbox } from '../unit/core/coordinator/coordinatorFixture';
import { Sandbox, waitUntil } from '../unit/core/worker/fixtures';
import { allFileContents, exchange, isRoot } from './faultKit';


describe('faults: tokens, socket permissions and secrets (cases 11, 14, 15)', function () {
  this.timeout(120_000);

  describe('tokens (case 11)', () => {
    let sb!: CoordinatorSandbox;
    let c: Coordinator;
    const logged: string[] = [];
    useCoordinatorSandbox((fresh) => {
      sb = fresh;
      logged.length = 0;
      c = sb.coordinator({ maxConcurrent: 4 }, { log: (m) => logged.push(m) });
    });

    it('a wrong token, no token and the token of another job close the connection, change nothing, echo nothing, log nothing', async () => {
      const a = await c.start({ repo: sb.repo, command: ['sh', '-c', 'stty raw -echo; cat > /dev/null'] });
      const b = await c.start({ repo: sb.repo, command: ['sh', '-c', 'stty raw -echo; cat > /dev/null'] });
      const ra = await sb.waitForState(a.id, ['running']);
      const rb = await sb.waitForState(b.id, ['running']);
      const tokenA = ra.execution!.socketToken;
      const tokenB = rb.execution!.socketToken;
      const pathB = rb.execution!.socketPath;
      const timelineBefore = (await sb.store.readTimeline(b.id)).length;
      const attempts = [
        { type: 'hello', token: tokenA },
        { type: 'attach', token: tokenA, cols: 80, rows: 24, readOnly: false },
        { type: 'hello' },
        { type: 'attach', cols: 80, rows: 24, readOnly: false },
        { type: 'hello', token: '' },
        { type: 'hello', token: tokenB.slice(0, -1) + (tokenB.endsWith('a') ? 'b' : 'a') },
        { type: 'input', data: 'x' },
        { type: 'stop', id: 1, force: true },
      ];
      for (const frame of attempts) {
        const got = await exchange(pathB, `${JSON.stringify(frame)}\n`);
        const lines = got.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; fatal?: boolean });
        assert.deepEqual(lines.map((l) => [l.type, l.fatal]), [['error', true]], `${JSON.stringify(frame).slice(0, 60)} → ${got}`);
        assert.ok(!got.includes(tokenA) && !got.includes(tokenB), 'no token echoed back');
      }
      // The stop attempt without authentication stopped nothing.
      const after = await sb.store.read(b.id);
      assert.equal(after.lifecycle.state, 'running');
      assert.equal(after.execution?.socketToken, tokenB);
      assert.equal((await sb.store.readTimeline(b.id)).length, timelineBefore, 'no timeline entry');
      assert.equal((await sb.store.read(a.id)).lifecycle.state, 'running');
      // Nothing outside the record (which must hold it) carries a token: logs, timeline, output, coordinator log.
      for (const f of allFileContents(sb.home)) {
        if (f.path.endsWith('job.json')) continue;
        assert.ok(!f.text.includes(tokenA) && !f.text.includes(tokenB), `a token leaked into ${f.path}`);
      }
      assert.ok(!logged.join('\n').includes(tokenA) && !logged.join('\n').includes(tokenB), 'a token reached the output channel');
      // Once stopped, the record drops the tokens: they are nowhere on disk.
      await c.stop(a.id);
      await c.stop(b.id);
      for (const f of allFileContents(sb.home)) {
        assert.ok(!f.text.includes(tokenA) && !f.text.includes(tokenB), `a token stayed in ${f.path} after the end`);
      }
    });
  });

  describe('socket directory permissions (case 14)', () => {
    let sb: Sandbox;
    afterEach(() => sb?.dispose());

    it('a worker makes its socket directory 0700, owned by the user, holding only its sockets', async () => {
      sb = new Sandbox();
      const job = await sb.start(['sleep', '60']);
      const exec = (await sb.store.read(job.id)).execution!;
      const dir = dirname(exec.socketPath);
      assert.equal(dir, sb.env.PADDOCK_RUNTIME_DIR);
      const st = statSync(dir);
      assert.equal(st.mode & 0o777, 0o700);
      assert.equal(st.uid, process.getuid!());
      assert.ok(statSync(exec.socketPath).isSocket());
      assert.equal(statSync(join(sb.home, 'jobs', job.id)).mode & 0o077, 0, 'the job folder is private too');
    });

    it('a runtime dir pre-created with loose permissions is refused, not used: the job fails saying why', async () => {
      sb = new Sandbox();
      const dir = sb.env.PADDOCK_RUNTIME_DIR!;
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const job = await sb.start(['sleep', '60'], { waitFor: ['failed', 'running', 'orphaned'] });
      assert.equal(job.lifecycle.state, 'failed');
      assert.match(job.lifecycle.detail ?? '', /accessible to other users/);
      assert.deepEqual(readdirSync(dir), [], 'no socket was created there');
      assert.equal(statSync(dir).mode & 0o777, 0o777, 'and it was not silently chmod-ed');
    });

    it('a runtime dir owned by another user is refused (needs root to chown)', async function () {
      if (!isRoot()) this.skip(); // chown to nobody needs root
      sb = new Sandbox();
      const dir = sb.env.PADDOCK_RUNTIME_DIR!;
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65534, 65534);
      const job = await sb.start(['sleep', '60'], { waitFor: ['failed', 'running', 'orphaned'] });
      assert.equal(job.lifecycle.state, 'failed');
      assert.match(job.lifecycle.detail ?? '', /belongs to another user/);
      assert.deepEqual(readdirSync(dir), []);
    });
  });

  describe('secrets (case 15)', () => {
    let sb: Sandbox;
    afterEach(() => sb?.dispose());

    const secret = 'pdk-s3cret-VALUE-0123456789';

    async function runAgentPrinting(lines: string[], skipFile: (path: string) => boolean = () => false) {
      sb = new Sandbox({ MY_API_KEY: secret });
      const script = [...lines, 'echo DONE', 'exit 3'].join('; ');
      const job = await sb.start(['bash', '-c', script], { settings: { secretEnvNames: ['MY_API_KEY'] }, waitFor: ['failed', 'completed'] });
      assert.equal(job.lifecycle.state, 'failed');
      await waitUntil('the output to be flushed', async () => (await sb.store.readOutput(job.id)).toString().includes('DONE'));
      const out = (await sb.store.readOutput(job.id)).toString();
      assert.ok(out.includes('[REDACTED]'), 'the output shows where the secret was');
      for (const f of allFileContents(sb.home)) {
        if (skipFile(f.path)) continue;
        // Line breaks removed too: a secret wrapped at the screen's margin is still the secret.
        const text = f.text.replace(/\r?\n/g, '');
        const at = text.indexOf(secret);
        assert.ok(at < 0, `the secret reached ${f.path}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 40))}`);
      }
      const rec = await sb.store.read(job.id);
      assert.ok(!JSON.stringify(rec).includes(secret), 'nor the record (what notifications are made of)');
    }

    const printsWhole = ['echo "key=$MY_API_KEY"', 'echo "$MY_API_KEY" >&2', 'printf "\\033[31m%s\\033[0m\\n" "$MY_API_KEY"'];

    it('secret values printed by an agent (stdout, stderr, coloured) reach neither the output log, the timeline, the record nor worker.log', async () => {
      // screen.txt is checked by the next case.
      await runAgentPrinting(printsWhole, (p) => p.endsWith('/screen.txt'));
    });

    // Found a real bug (fixed): src/core/worker/agentWorker.ts AgentWorker.saveFinalScreen() writes the mirror's visible lines to
    // jobs/<id>/screen.txt without redaction, so `paddock screen` of an ended agent prints the secret
    // ("key=pdk-s3cret-VALUE-0123456789"). Fix: pass the job's Redactor (Redactor.fromEnv(secretEnvNames, env))
    // to AgentWorker and write redactor.redact(text); join wrapped rows (xterm line.isWrapped) before
    // redacting so a secret wrapped at the right margin is caught too.
    it('secret values printed by an agent do not reach the saved final screen (screen.txt)', async () => {
      await runAgentPrinting(printsWhole);
    });

    it('a secret wrapped at the right margin does not reach the saved final screen either', async () => {
      // Five characters before the margin: the secret continues on the next screen row.
      await runAgentPrinting(['pad=$(( $(stty size | cut -d" " -f2) - 5 ))', 'printf "%${pad}s%s\\n" "" "$MY_API_KEY"']);
    });

    // Found a real bug (fixed): src/core/store/outputLog.ts OutputLog.flush() (run by the 100 ms quiet timer) writes the whole
    // held-back tail, which can be the first part of a secret; the rest arrives later and is redacted on
    // its own, so the file holds the secret whole ("key=[REDACTED]\r\n…pdk-s3cret-VALUE-0123456789\r\n").
    // Fix: a quiet flush keeps back the longest suffix of `pending` that is a prefix of a secret
    // (only close() writes everything); or keep the last longestSecret-1 written chars and redact across the seam.
    it('a secret printed in two parts with a pause between them reaches no file of the store', async () => {
      await runAgentPrinting(['printf "%s" "${MY_API_KEY:0:9}"; sleep 0.3; printf "%s\\n" "${MY_API_KEY:9}"'], (p) => p.endsWith('/screen.txt'));
    });
  });
});
