import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawn } from 'node:child_process';
import { bootId, commandLineOf, readProcStat } from '../../../../src/core/proc';
import { holder } from '../../../../src/core/proc/procfs';
import { asLeftovers } from '../../../../src/core/worker/leftovers';
import { describeSurvivors, stopDetail } from '../../../../src/core/worker/stopAgent';
import { Redactor } from '../../../../src/core/store';
import { redactCredentialArguments } from '../../../../src/core/store/credentialArgs';
import { allFiles, sampleJob, TestBed } from './helpers';

describe('credentials in command lines', () => {
  it('redacts the values of credential-named options and variables, in every spelling', () => {
    const cases: [string, string][] = [
      ['devserver --api-key=sk-live-123 --port=3000', 'devserver --api-key=[REDACTED] --port=3000'],
      ['node srv.js --token xyz123 --verbose', 'node srv.js --token [REDACTED] --verbose'],
      ['mysql --password=hunter2 -u root', 'mysql --password=[REDACTED] -u root'],
      ['app --db-passwd "two words" x', 'app --db-passwd [REDACTED] x'],
      ['API_KEY=abc123 GITHUB_TOKEN=ghx cmd --x', 'API_KEY=[REDACTED] GITHUB_TOKEN=[REDACTED] cmd --x'],
      ['env DB_PASSWORD=pw AWS_SECRET_ACCESS_KEY=k run', 'env DB_PASSWORD=[REDACTED] AWS_SECRET_ACCESS_KEY=[REDACTED] run'],
      ['cli --auth bearer123 --client-secret=s3 --credentials=/c.json', 'cli --auth [REDACTED] --client-secret=[REDACTED] --credentials=[REDACTED]'],
      ['curl https://x.invalid/?access_token=abc&x=1', 'curl https://x.invalid/?access_token=[REDACTED]'],
    ];
    for (const [raw, want] of cases) assert.equal(redactCredentialArguments(raw), want, raw);
  });

  it('leaves options and variables that are not credentials alone', () => {
    for (const text of ['git commit --author=me --message=fix', 'vim --keyboard=us -p', 'PATH=/bin HOME=/h ls --color=auto', 'make -j4 --tokenizer-path x']) {
      assert.equal(redactCredentialArguments(text), text);
    }
  });
});

describe('store: text from outside Paddock is redacted on its way in', () => {
  let bed: TestBed;
  const children: number[] = [];
  beforeEach(() => (bed = new TestBed()));
  afterEach(() => {
    for (const pid of children.splice(0)) try { process.kill(pid, 'SIGKILL'); } catch { /* exited */ }
    bed.cleanup();
  });

  it("holders, leftovers, errors, details and timeline messages lose credential options and the job's secret variables, even in a process that is not the worker", async () => {
    const secret = 'job-secret-value-from-env';
    // A store like the CLI's or the extension's: no redactor of its own.
    const store = bed.store({ secretEnv: { MY_AGENT_KEY: secret } });
    const job = await store.create(sampleJob({ settings: { ...sampleJob().settings, secretEnvNames: ['MY_AGENT_KEY'] } }));
    const now = new Date().toISOString();
    await store.update(job.id, (j) => {
      j.cleanup = {
        phase: 'incomplete',
        remaining: ['worktree'],
        stage: 'removing',
        failures: 1,
        nextAttemptAt: null,
        lastError: `held by devserver --token tok-AAAA and ${secret}`,
        needsAttention: false,
        holders: [
          { pid: 11, command: `devserver --api-key=sk-live-4242 --port 3000` },
          { pid: 12, command: `API_KEY=plain-4242 node watch.js ${secret}` },
          { pid: 13, command: `${'x'.repeat(480)} --password=pw` },
        ],
        deleteBranch: false,
        fingerprint: null,
        branchOutcome: null,
        requestedAt: now,
        updatedAt: now,
      };
      j.lifecycle.detail = `exit 1: --password hunter2-pw`;
      // What an ended agent left running, by command line like the holders (bug 149).
      // A live process (this one), or the next reader would drop it from the list before we look.
      j.leftovers = [{ pid: process.pid, command: `app-server --api-key=left-4242 ${secret}`, startTime: readProcStat(process.pid)!.startTime, bootId: bootId() }];
    });
    await store.appendTimeline(job.id, { generation: 1, type: 'note', message: `ran DB_PASSWORD=dbpw-77 ${secret}` });
    const record = await store.read(job.id);
    assert.deepEqual(
      record.cleanup!.holders.slice(0, 2).map((h) => h.command),
      ['devserver --api-key=[REDACTED] --port 3000', 'API_KEY=[REDACTED] node watch.js [REDACTED]'],
    );
    assert.ok(record.cleanup!.holders[2].command.length <= 500, 'a redaction longer than the value still fits the schema');
    assert.deepEqual(record.leftovers!.map((p) => p.command), ['app-server --api-key=[REDACTED] [REDACTED]']);
    for (const file of allFiles(store.home)) {
      const content = fs.readFileSync(file, 'utf8');
      for (const value of [secret, 'sk-live-4242', 'plain-4242', 'tok-AAAA', 'hunter2-pw', 'dbpw-77', 'left-4242']) assert.ok(!content.includes(value), `${value} in ${file}`);
    }
  });

  it('a secret across the cut to the schema\'s limit: no part of it is stored (bug 149)', async () => {
    const secret = 'S3CRET-abcdefghijklmnopqrstuvwxyz0123456789';
    const store = bed.store({ secretEnv: { MY_AGENT_KEY: secret } });
    const job = await store.create(sampleJob({ settings: { ...sampleJob().settings, secretEnvNames: ['MY_AGENT_KEY'] } }));
    // `sh -c 'sleep 600; :' <pad> <secret>` (no exec of sleep in its place): the secret starts at column `at` of its command line.
    const script = 'sleep 600; :';
    const withSecretAt = async (at: number): Promise<number> => {
      const child = spawn('sh', ['-c', script, 'p'.repeat(at - `sh -c ${script} `.length - 1), secret], { detached: true, stdio: 'ignore' });
      child.unref();
      children.push(child.pid!);
      return child.pid!;
    };
    const near500 = await withSecretAt(490);
    // In the survivors' words "<pid> (<command>)" and a stop's detail, near the 2000-character cap.
    const near2000 = await withSecretAt(1980);
    // A stop's detail says "stopped, but still running: " before them.
    const inDetail = await withSecretAt(1950);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(commandLineOf(near500).includes(secret), 'the command line is read whole');
    await store.update(job.id, (j) => {
      j.leftovers = asLeftovers([readProcStat(near500)!]);
      j.leftoversFate = { count: 0, outcome: 'ended', survivors: describeSurvivors(asLeftovers([readProcStat(near2000)!])), generation: 1 };
      j.lifecycle.detail = stopDetail({ escalated: true, graceMs: 1, survivors: asLeftovers([readProcStat(inDetail)!]) });
      j.cleanup = {
        phase: 'incomplete', remaining: ['worktree'], stage: 'removing', failures: 1, nextAttemptAt: null, lastError: null,
        needsAttention: false, holders: [holder(near500, commandLineOf(near500))], deleteBranch: false, fingerprint: null,
        branchOutcome: null, requestedAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
      };
    });
    await store.appendTimeline(job.id, { generation: 1, type: 'note', message: `${'m'.repeat(1990)} ${secret}` });
    const record = await store.read(job.id);
    assert.ok(record.leftovers![0].command.length <= 500 && record.cleanup!.holders[0].command.length <= 500);
    for (const file of allFiles(store.home)) {
      const content = fs.readFileSync(file, 'utf8');
      assert.ok(!content.includes(secret.slice(0, 8)), `${secret.slice(0, 8)}… in ${file}`);
    }
  });

  it('keeps redacting with the configured secrets too', async () => {
    const store = bed.store({ redactor: new Redactor(['configured-secret']), secretEnv: {} });
    const job = await store.create(sampleJob());
    await store.transition(job.id, 'starting', { detail: 'saw configured-secret' });
    assert.equal((await store.read(job.id)).lifecycle.detail, 'saw [REDACTED]');
  });
});
