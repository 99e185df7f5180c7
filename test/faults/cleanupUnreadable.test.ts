/**
 * Issue 11, case 7: an unreadable or undeletable folder in the worktree stops cleanup before
 * anything is removed; once its mode is mended, cleanup completes and its files come back. Run as
 * nobody when the suite runs as root (root reads and deletes anything).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { treeState } from '../unit/core/git/treeState';
import { CLI, endProcessesOfHome, isRoot } from './faultKit';
import { agent, anyGit, isWorktreeOf, KEY, roundTrip, type Run, show } from './cleanupKit';

/** Who runs the CLI in the permission cases: as root, nobody (root reads and deletes anything). */
const NOBODY = 65534;

describe('faults: unreadable and undeletable folders stop cleanup before anything is removed (issue 11, case 7)', function () {
  this.timeout(180_000);
  let root: string | undefined;
  let r!: Run;
  let uid: number | undefined;

  beforeEach(function () {
    uid = isRoot() ? NOBODY : undefined;
    root = mkdtempSync('/tmp/pdn-');
    chmodSync(root, 0o755);
    if (uid !== undefined) chownSync(root, uid, uid);
    const env = {
      PATH: process.env.PATH,
      HOME: join(root, 'h'),
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      PADDOCK_HOME: join(root, 'home'),
      PADDOCK_RUNTIME_DIR: join(root, 'r'),
      // CI runs the suites again with the portable (ps/lsof) backend: every process of a test uses the same one.
      ...(process.env.PADDOCK_PROCESS_BACKEND ? { PADDOCK_PROCESS_BACKEND: process.env.PADDOCK_PROCESS_BACKEND } : {}),
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      ANTHROPIC_API_KEY: KEY,
    };
    const as = uid === undefined ? {} : { uid, gid: uid };
    const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { cwd: root, env, encoding: 'utf8', ...as });
    const probe = sh(`test -r ${CLI} && node -e 0 && mkdir -p h repo && cd repo && git init -q -b main && echo hi > README.md && git add . && git commit -q -m init`);
    if (probe.status !== 0) {
      console.log(`      skipped: cannot run the CLI as uid ${uid}: ${probe.stderr.trim()}`);
      this.skip();
    }
    const repo = join(root, 'repo');
    r = {
      run: (args) => {
        const res = spawnSync(process.execPath, [CLI, ...args], { env, cwd: repo, encoding: 'utf8', timeout: 60_000, ...as });
        return { code: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '' };
      },
      home: env.PADDOCK_HOME,
      repo,
      root,
    };
  });
  afterEach(async () => {
    if (!root) return;
    // A cleanup that stopped leaves a retry to a background coordinator (`paddock coordinate --until-idle`),
    // which goes on writing into the store: end it (and any worker) before deleting.
    await endProcessesOfHome(join(root, 'home'));
    // Agents and workers ran as `uid`: make everything deletable, then let root (or the owner) delete.
    spawnSync('sh', ['-c', `chmod -R u+rwx ${root} 2>/dev/null`], uid === undefined ? {} : { uid, gid: uid });
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    root = undefined;
  });

  it('an unreadable folder: stops awaiting consent, the worktree and its registration intact; after chmod 755 it completes and d/f comes back', async () => {
    const { id, worktree } = await agent(r, 'mkdir d && echo precious > d/f && chmod 000 d');
    const res = r.run(['cleanup', id, '--yes']);
    assert.equal(res.code, 1);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, /stopped before removing anything: .*d \(cannot be read\)/);
    const job = show(r, id);
    assert.equal(job.cleanup!.stage, 'capturing');
    assert.equal(job.cleanup!.awaitingConsent, true);
    assert.equal(job.cleanup!.needsAttention, true);
    assert.match(String(job.cleanup!.lastError), /d \(cannot be read\)/);
    assert.ok(existsSync(join(worktree, '.git')) && isWorktreeOf(r.repo, worktree), 'still a registered git worktree');
    chmodSync(join(worktree, 'd'), 0o755);
    const before = treeState(worktree);
    const to = roundTrip(r, id, before);
    assert.equal(readFileSync(join(to, 'd', 'f'), 'utf8'), 'precious\n');
  });

  it('an undeletable folder (mode 555 holding a file): removing fails before git is asked, the worktree intact; after chmod it completes', async () => {
    const { id, worktree } = await agent(r, 'mkdir ro && echo x > ro/f && chmod 555 ro && echo w > w.txt');
    const res = r.run(['cleanup', id, '--yes']);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /incomplete at removing: cannot delete what is in ro/);
    assert.equal(show(r, id).cleanup!.stage, 'removing');
    assert.ok(existsSync(join(worktree, '.git')) && isWorktreeOf(r.repo, worktree), 'still a registered git worktree');
    assert.equal(anyGit(worktree, 'status', '--porcelain'), '?? ro/\n?? w.txt');
    chmodSync(join(worktree, 'ro'), 0o755);
    roundTrip(r, id, treeState(worktree));
  });
});
