/**
 * Landing from the Agents view in a real extension host: Merge into Base from
 * an agent's row (the base branch gets the agent's commit, the record its
 * landing, the row its Land capabilities), Apply to Workspace (the changes
 * show in the Source Control view's repository, uncommitted), Update from Base
 * and Resolve in Agent's Worktree (the base comes into the agent's worktree, a
 * conflict stays there), Create Pull Request (the branch is pushed to a local
 * bare remote, a fake `gh` on PATH opens the request), and Remove from List.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { JobRecord } from '../../src/core/store/schema';
import type { PaddockApi } from '../../src/extension';
import { env, paddock, treeItemFor, waitFor, waitForState } from './helpers';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

interface GitRepository {
  rootUri: vscode.Uri;
  status(): Promise<void>;
  state: { workingTreeChanges: { uri: vscode.Uri }[]; untrackedChanges?: { uri: vscode.Uri }[] };
}

/** The built-in git extension's view of the workspace: what the Source Control view shows. */
async function scmRepository(root: string): Promise<GitRepository | undefined> {
  const ext = vscode.extensions.getExtension<{ getAPI(v: 1): { repositories: GitRepository[] } }>('vscode.git');
  if (!ext) return undefined;
  const api = (await ext.activate()).getAPI(1);
  return waitFor('the git extension to open the workspace repository', () => api.repositories.find((r) => r.rootUri.fsPath === root), 30_000);
}

describe('landing from the Agents view', function () {
  this.timeout(180_000);
  let ext: PaddockApi;
  let workspace: string;
  let startHead: string;

  before(async () => {
    ext = await paddock();
    workspace = env('PADDOCK_HOST_TEST_WORKSPACE');
    startHead = git(workspace, 'rev-parse', 'HEAD');
    const commit = 'echo landed > landed.txt; git add landed.txt; git -c user.name=t -c user.email=t@t commit -qm "agent: landed.txt"';
    await vscode.workspace.getConfiguration('paddock').update(
      'profiles',
      {
        hostland: { command: 'bash', args: ['-c', commit] },
        hostland2: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'again')] },
        hostnoff: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'noff')] },
        hostapply: { command: 'bash', args: ['-c', 'echo applied > applied.txt'] },
        hostupdate: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'updated')] },
        hostconflict: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'conflict')] },
        hostpr: { command: 'bash', args: ['-c', commit.replace(/landed/g, 'proposed')] },
        hostforget: { command: 'bash', args: ['-c', 'echo forgotten > forgotten.txt'] },
        hostlive: { command: 'bash', args: ['-c', `${commit.replace(/landed/g, 'live')}; sleep 120`] },
      },
      vscode.ConfigurationTarget.Global,
    );
  });

  after(() => {
    // Leave the shared workspace as it was for the suites after this one.
    execFileSync('git', ['reset', '-q', '--hard', startHead], { cwd: workspace });
    rmSync(path.join(workspace, 'applied.txt'), { force: true });
  });

  /** Commits `file` with `content` on the checked-out base (main), as a person would after the agent started. */
  function commitOnBase(file: string, content: string): string {
    writeFileSync(path.join(workspace, file), content);
    git(workspace, 'add', file);
    git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', `base: ${file}`);
    return git(workspace, 'rev-parse', 'HEAD');
  }

  /** True when `commit` is in the history of HEAD in `cwd`. */
  function contains(cwd: string, commit: string): boolean {
    try {
      execFileSync('git', ['merge-base', '--is-ancestor', commit, 'HEAD'], { cwd });
      return true;
    } catch {
      return false;
    }
  }

  async function startAgent(profile: string): Promise<JobRecord> {
    const job = (await vscode.commands.executeCommand('paddock.startAgent', { repo: workspace, profile, prompt: `land via ${profile}`, base: '', openTerminal: false })) as JobRecord;
    await waitForState(ext, job.id, ['completed']);
    return job;
  }

  it('Merge into Base from the row: the base has the commit and the record its landing', async () => {
    const job = await startAgent('hostland');
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    assert.match(String(found.item.contextValue), /^agent:completed:.*\bland\b.*\bupdate\b/);
    const tip = git(workspace, 'rev-parse', job.branch!);
    const result = (await vscode.commands.executeCommand('paddock.merge', found.node, [found.node], { strategy: 'merge', confirmed: true, cleanUp: 'never' })) as { kind: string; into: string };
    assert.equal(result.kind, 'ff', JSON.stringify(result));
    assert.equal(git(workspace, 'rev-parse', 'main'), tip, 'main has the agent commit');
    assert.ok(existsSync(path.join(workspace, 'landed.txt')), 'the checked-out base got the file');
    const record = await ext.store.read(job.id);
    assert.equal(record.landing?.kind, 'ff');
    assert.equal(record.landing?.into, 'main');
    assert.equal(record.landing?.commit, tip);
  });

  // Known gap: the window had no way to ask for --no-ff, as `paddock merge --no-ff` does.
  it('Merge into Base with fastForward "never" makes a merge commit where a fast-forward would do', async () => {
    const job = await startAgent('hostnoff');
    const before = git(workspace, 'rev-parse', 'main');
    const tip = git(workspace, 'rev-parse', job.branch!);
    const result = (await vscode.commands.executeCommand('paddock.merge', job.id, { strategy: 'merge', fastForward: 'never', confirmed: true, cleanUp: 'never' })) as { kind: string };
    assert.equal(result.kind, 'merge', JSON.stringify(result));
    assert.equal(git(workspace, 'rev-parse', 'main^1'), before, 'the merge commit is on the old main');
    assert.equal(git(workspace, 'rev-parse', 'main^2'), tip, "and has the agent's tip as its second parent");
    assert.ok(existsSync(path.join(workspace, 'noff.txt')), 'the checked-out base got the file');
    assert.equal((await ext.store.read(job.id)).landing?.kind, 'merge');
  });

  it('paddock.cleanUpAfterLanding "always": the landed agent is cleaned up and its branch deleted as safe', async () => {
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('cleanUpAfterLanding', 'always', vscode.ConfigurationTarget.Global);
    try {
      const job = await startAgent('hostland2');
      const result = (await vscode.commands.executeCommand('paddock.merge', job.id, { strategy: 'squash', confirmed: true })) as { kind: string };
      assert.equal(result.kind, 'squash', JSON.stringify(result));
      const cleaned = await waitFor('the landed agent to be cleaned up', async () => {
        const r = await ext.store.read(job.id);
        return r.cleanup?.phase === 'complete' ? r : undefined;
      }, 60_000);
      assert.match(cleaned.cleanup?.branchOutcome ?? '', /deleted/);
      assert.equal(git(workspace, 'branch', '--list', job.branch!), '', 'the squashed branch is gone');
      assert.equal(git(workspace, 'log', '-1', '--format=%s', 'main'), 'land via hostland2');
    } finally {
      await config.update('cleanUpAfterLanding', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  // Bug: "always" stopped an agent landed as it is while it ran ("let it go on") and removed its worktree.
  it('paddock.cleanUpAfterLanding "always" leaves an agent landed while it runs on running, with its worktree', async () => {
    const config = vscode.workspace.getConfiguration('paddock');
    await config.update('cleanUpAfterLanding', 'always', vscode.ConfigurationTarget.Global);
    try {
      const job = (await vscode.commands.executeCommand('paddock.startAgent', { repo: workspace, profile: 'hostlive', prompt: 'land while running', base: '', openTerminal: false })) as JobRecord;
      await waitFor('the running agent to commit', async () => {
        const r = await ext.store.read(job.id);
        return r.lifecycle.state === 'running' && git(workspace, 'log', '-1', '--format=%s', job.branch!) === 'agent: live.txt' ? r : undefined;
      }, 60_000);
      const result = (await vscode.commands.executeCommand('paddock.merge', job.id, { strategy: 'merge', confirmed: true, running: 'as-is' })) as { kind: string };
      assert.ok(result.kind === 'ff' || result.kind === 'merge', JSON.stringify(result));
      await new Promise((r) => setTimeout(r, 3000));
      const after = await ext.store.read(job.id);
      assert.equal(after.lifecycle.state, 'running', 'still running');
      assert.equal(after.cleanup, null, 'not cleaned up');
      assert.ok(existsSync(job.worktree!), 'its worktree is there');
      await vscode.commands.executeCommand('paddock.stop', job.id, { confirmed: true });
      await waitFor('the agent to end', async () => ((await ext.store.read(job.id)).lifecycle.state === 'running' ? undefined : true), 30_000);
    } finally {
      await config.update('cleanUpAfterLanding', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Apply to Workspace: the changes show in the Source Control view, uncommitted', async () => {
    const job = await startAgent('hostapply');
    const head = git(workspace, 'rev-parse', 'HEAD');
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    const result = (await vscode.commands.executeCommand('paddock.apply', found.node, [found.node], { cleanUp: 'never' })) as { files: string[] };
    assert.deepEqual(result.files, ['applied.txt']);
    assert.equal(git(workspace, 'rev-parse', 'HEAD'), head, 'nothing committed');
    const repo = await scmRepository(workspace);
    assert.ok(repo, 'the git extension knows the workspace');
    await waitFor('applied.txt in the Source Control view', async () => {
      await repo.status();
      const changes = [...repo.state.workingTreeChanges, ...(repo.state.untrackedChanges ?? [])];
      return changes.some((c) => c.uri.fsPath === path.join(workspace, 'applied.txt'));
    }, 30_000);
    assert.equal((await ext.store.read(job.id)).landing?.kind, 'apply');
  });

  it('Update from Base from the row: the agent\'s branch gets a commit made on the base after it started', async () => {
    const job = await startAgent('hostupdate');
    const agentTip = git(job.worktree!, 'rev-parse', 'HEAD');
    const baseCommit = commitOnBase('base-later.txt', 'later\n');
    assert.ok(!contains(job.worktree!, baseCommit), 'the agent started before the base commit');
    const found = await treeItemFor(ext, job.id);
    assert.ok(found);
    const report = (await vscode.commands.executeCommand('paddock.update', found.node, [found.node], { rebase: false })) as { updated: boolean; base: string };
    assert.equal(report.updated, true, JSON.stringify(report));
    assert.equal(report.base, 'main');
    assert.ok(contains(job.worktree!, baseCommit), 'the worktree has the base commit');
    assert.ok(contains(job.worktree!, agentTip), 'and still its own');
    assert.equal(git(workspace, 'rev-parse', job.branch!), git(job.worktree!, 'rev-parse', 'HEAD'), 'on the agent\'s branch');
    assert.equal(readFileSync(path.join(job.worktree!, 'base-later.txt'), 'utf8'), 'later\n');
    assert.equal(git(workspace, 'rev-parse', 'main'), baseCommit, 'the base did not move');
  });

  it('Resolve in Agent\'s Worktree: a conflicting base change is merged there and the conflict waits in the worktree', async () => {
    const job = await startAgent('hostconflict');
    const baseCommit = commitOnBase('conflict.txt', 'base side\n');
    const result = (await vscode.commands.executeCommand('paddock.resolveInWorktree', job.id)) as { conflict: boolean; files: string[] };
    assert.deepEqual(result, { conflict: true, files: ['conflict.txt'] });
    const mergeHead = git(job.worktree!, 'rev-parse', '-q', '--verify', 'MERGE_HEAD');
    assert.equal(mergeHead, baseCommit, 'a merge of the base is under way in the worktree');
    const text = readFileSync(path.join(job.worktree!, 'conflict.txt'), 'utf8');
    assert.match(text, /^<<<<<<< /m);
    assert.match(text, /^base side$/m);
    assert.match(text, /^conflict$/m);
    assert.equal(git(workspace, 'rev-parse', 'main'), baseCommit, 'the base is untouched');
    assert.equal(git(workspace, 'status', '--porcelain', '--untracked-files=no'), '', 'the base checkout has no conflict');
    git(job.worktree!, 'merge', '--abort');
  });

  it('Create Pull Request: the branch is pushed to the base\'s upstream remote and gh opens the request', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'paddock-host-pr-'));
    const remote = path.join(scratch, 'origin.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(workspace, 'remote', 'add', 'origin', remote);
    git(workspace, 'push', '-q', '-u', 'origin', 'main');
    // A fake GitHub CLI first on the host's PATH (Paddock runs gh with the extension host's environment): it records its arguments.
    const bin = path.join(scratch, 'bin');
    const log = path.join(scratch, 'gh.log');
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, 'gh'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nif [ "$1" = auth ]; then exit 0; fi\nif [ "$1" = pr ]; then echo https://example.test/pull/7; exit 0; fi\nexit 2\n`,
    );
    chmodSync(path.join(bin, 'gh'), 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    try {
      const job = await startAgent('hostpr');
      const tip = git(workspace, 'rev-parse', job.branch!);
      const report = (await vscode.commands.executeCommand('paddock.createPullRequest', job.id, { title: 'Host PR', confirmed: true })) as { remote: string; base: string; url: string; opened: boolean };
      assert.equal(report.remote, 'origin');
      assert.equal(report.base, 'main');
      assert.equal(report.opened, true);
      assert.equal(report.url, 'https://example.test/pull/7');
      assert.equal(git(remote, 'rev-parse', `refs/heads/${job.branch!}`), tip, 'the branch is on the remote');
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      assert.equal(calls[0], 'auth status');
      assert.match(calls[1], new RegExp(`^pr create --head ${job.branch!} --base main --title Host PR --body `));
      const record = await ext.store.read(job.id);
      assert.equal(record.landing?.kind, 'pr');
      assert.equal(record.landing?.into, 'origin/main');
      assert.equal(record.landing?.commit, tip);
      assert.equal(record.landing?.url, 'https://example.test/pull/7');
    } finally {
      process.env.PATH = savedPath;
      git(workspace, 'remote', 'remove', 'origin');
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('Remove from List: a cleaned-up agent\'s record is gone and the tree no longer shows it', async () => {
    const job = await startAgent('hostforget');
    await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
    await waitFor('the cleanup to complete', async () => ((await ext.store.read(job.id)).cleanup?.phase === 'complete' ? true : undefined), 60_000);
    await ext.agents.refresh(job.id);
    const found = await treeItemFor(ext, job.id);
    assert.ok(found, 'the cleaned-up agent is listed before');
    const forgotten = (await vscode.commands.executeCommand('paddock.forget', found.node, [found.node], { confirmed: true })) as string[];
    assert.deepEqual(forgotten, [job.id]);
    await assert.rejects(ext.store.read(job.id), 'the record is gone');
    await waitFor('the row to leave the tree', async () => {
      await ext.agents.refresh(job.id);
      return (await treeItemFor(ext, job.id)) === undefined;
    });
    assert.ok(git(workspace, 'rev-parse', '--verify', `refs/paddock/snapshots/${job.id}`), 'the snapshot ref is kept');
  });
});
