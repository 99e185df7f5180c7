/**
 * Pushing an agent's branch to a local bare remote (never forced: a diverged
 * remote branch is a rejection that changes nothing), choosing the remote,
 * the compare-page URL forms of the four hosts, and `gh` through a fake
 * program on PATH that records its arguments.
 */
import * as assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { chooseRemote, compareUrl, createPullRequestWithGh, githubRepoArg, pushBranch } from '../../../../src/core/git';
import { PaddockError } from '../../../../src/core/common/errors';
import { fakeGh, ghCalls } from './fakeGh';
import { git, Sandbox, useGitSandbox, write } from './gitTestUtil';

describe('git: remotes, push and pull requests', function () {
  this.timeout(30_000);
  let sb!: Sandbox;
  useGitSandbox((fresh) => (sb = fresh));

  function setup() {
    const repo = sb.repo();
    const bare = sb.path('remote.git');
    git(sb.dir, 'init', '-q', '--bare', bare);
    git(repo, 'remote', 'add', 'origin', bare);
    git(repo, 'push', '-q', 'origin', 'main');
    git(repo, 'branch', 'paddock/agent', 'main');
    git(repo, 'checkout', '-q', 'paddock/agent');
    write(repo, 'a.txt', 'a\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent');
    git(repo, 'checkout', '-q', 'main');
    return { repo, bare };
  }

  it('pushes the branch to a bare remote', async () => {
    const { repo, bare } = setup();
    await pushBranch(repo, 'origin', 'paddock/agent');
    assert.equal(git(bare, 'rev-parse', 'paddock/agent'), git(repo, 'rev-parse', 'paddock/agent'));
  });

  it('pushes only the branch: push.followTags does not publish the tags on its commits', async () => {
    const { repo, bare } = setup();
    git(repo, 'config', 'push.followTags', 'true');
    git(repo, 'tag', '-a', '-m', 'private', 'v-private', 'paddock/agent');
    await pushBranch(repo, 'origin', 'paddock/agent');
    assert.equal(git(bare, 'rev-parse', 'paddock/agent'), git(repo, 'rev-parse', 'paddock/agent'));
    assert.equal(git(bare, 'tag', '--list'), '', 'no tag pushed');
  });

  it('a push the remote rejects (diverged) is never forced and changes nothing', async () => {
    const { repo, bare } = setup();
    const other = sb.path('other');
    git(sb.dir, 'clone', '-q', bare, other);
    git(other, 'checkout', '-q', '-b', 'paddock/agent');
    write(other, 'b.txt', 'someone else\n');
    git(other, 'add', '-A');
    git(other, 'commit', '-q', '-m', 'someone else');
    git(other, 'push', '-q', 'origin', 'paddock/agent');
    const theirs = git(bare, 'rev-parse', 'paddock/agent');
    await assert.rejects(pushBranch(repo, 'origin', 'paddock/agent'), (e: PaddockError) => e.code === 'PUSH_REJECTED' && /nothing was changed/.test(e.message));
    assert.equal(git(bare, 'rev-parse', 'paddock/agent'), theirs);
  });

  it("a push the person's pre-push hook refuses says so, without quoting the hook (it is given the remote's URL), and changes nothing (bug 55)", async () => {
    const { repo, bare } = setup();
    write(repo, '.git/hooks/pre-push', '#!/bin/sh\necho "refusing $2" >&2\nexit 1\n');
    chmodSync(`${repo}/.git/hooks/pre-push`, 0o755);
    await assert.rejects(pushBranch(repo, 'origin', 'paddock/agent'), (e: PaddockError) => {
      assert.equal(e.code, 'PUSH_REJECTED');
      assert.equal(e.message, `The push of paddock/agent to origin failed (refused by the repository's pre-push hook ${repo}/.git/hooks/pre-push); nothing was changed.`);
      return true;
    });
    assert.equal(git(bare, 'branch', '--list', 'paddock/agent'), '', 'nothing pushed');
  });

  it('chooses the base upstream remote, then origin, then the only one; none is null; an unknown name is bad input', async () => {
    const repo = sb.repo();
    assert.equal(await chooseRemote(repo, 'main'), null);
    git(repo, 'remote', 'add', 'upstream', sb.path('u.git'));
    assert.equal(await chooseRemote(repo, 'main'), 'upstream');
    git(repo, 'remote', 'add', 'origin', sb.path('o.git'));
    assert.equal(await chooseRemote(repo, 'main'), 'origin');
    git(repo, 'config', 'branch.main.remote', 'upstream');
    assert.equal(await chooseRemote(repo, 'main'), 'upstream');
    await assert.rejects(chooseRemote(repo, 'main', 'nope'), (e: PaddockError) => e.kind === 'usage');
  });

  it('compare URLs for GitHub, GitLab, Bitbucket and Azure DevOps remotes; unknown hosts give none', () => {
    assert.equal(compareUrl('git@github.com:o/r.git', 'paddock/x', 'main'), 'https://github.com/o/r/compare/main...paddock%2Fx?expand=1');
    assert.equal(compareUrl('https://github.com/o/r', 'b', 'main'), 'https://github.com/o/r/compare/main...b?expand=1');
    assert.equal(
      compareUrl('ssh://git@gitlab.example.com:2222/g/sub/r.git', 'b', 'main'),
      'https://gitlab.example.com/g/sub/r/-/merge_requests/new?merge_request%5Bsource_branch%5D=b&merge_request%5Btarget_branch%5D=main',
    );
    assert.equal(compareUrl('git@bitbucket.org:o/r.git', 'b', 'dev'), 'https://bitbucket.org/o/r/pull-requests/new?source=b&dest=dev');
    assert.equal(compareUrl('https://org@dev.azure.com/org/proj/_git/repo', 'b', 'main'), 'https://dev.azure.com/org/proj/_git/repo/pullrequestcreate?sourceRef=b&targetRef=main');
    assert.equal(compareUrl('git@ssh.dev.azure.com:v3/org/proj/repo', 'b', 'main'), 'https://dev.azure.com/org/proj/_git/repo/pullrequestcreate?sourceRef=b&targetRef=main');
    assert.equal(compareUrl('/srv/git/r.git', 'b', 'main'), null);
    assert.equal(compareUrl('https://example.org/o/r.git', 'b', 'main'), null);
  });

  // Bug: the port of an https remote was dropped (a self-hosted server on :8443 got a page on :443)
  // and an http remote's page was given as https; a password holding an '@' leaked into the host.
  it('compare pages keep the port of an https remote and the scheme of an http one, drop an ssh port, and never carry credentials', () => {
    assert.equal(compareUrl('https://gitlab.example.com:8443/g/sub/r.git', 'b', 'main'), 'https://gitlab.example.com:8443/g/sub/r/-/merge_requests/new?merge_request%5Bsource_branch%5D=b&merge_request%5Btarget_branch%5D=main');
    assert.equal(compareUrl('http://gitlab.internal/g/r.git', 'b', 'main'), 'http://gitlab.internal/g/r/-/merge_requests/new?merge_request%5Bsource_branch%5D=b&merge_request%5Btarget_branch%5D=main');
    assert.equal(compareUrl('HTTPS://GitHub.example.com:444/o/r', 'b', 'main'), 'https://github.example.com:444/o/r/compare/main...b?expand=1');
    assert.equal(compareUrl('ssh://git@github.example.com:2222/o/r.git', 'b', 'main'), 'https://github.example.com/o/r/compare/main...b?expand=1');
    for (const remote of ['https://me:s3cr%40t@github.com/o/r.git', 'https://me:p@ss@github.com/o/r.git', 'https://x-token:ghp_abc@github.com:443/o/r.git']) {
      const url = compareUrl(remote, 'b', 'main')!;
      assert.ok(url.startsWith('https://github.com'), url);
      assert.doesNotMatch(url, /me|s3cr|ss@|ghp_abc|x-token/, url);
    }
  });

  // Bug 92: gh was given an Enterprise server's repository without its port (or, on a host of no
  // known form, none, and gh read the remote's host without the port itself). Found by review: gh
  // takes no port at all, and an ssh host alias (~/.ssh/config) must be left to gh to resolve.
  it('the repository gh is given: HOST/OWNER/REPO, no ssh port, none for an ssh host of no known form or a path gh cannot take; a server on its own https port not given to gh', () => {
    // gh takes no port in a host (cli/cli#6845): a server on a port of its own is not given to gh at all.
    assert.deepEqual(githubRepoArg('https://ghe.example.com:8443/org/repo.git'), { unusable: 'gh was not used: it cannot reach a server on a port of its own (https://ghe.example.com:8443).' });
    assert.deepEqual(githubRepoArg('https://github.example.com:8443/org/repo'), { unusable: 'gh was not used: it cannot reach a server on a port of its own (https://github.example.com:8443).' });
    assert.deepEqual(githubRepoArg('https://ghe.example.com/org/repo.git'), { repo: 'ghe.example.com/org/repo' });
    assert.deepEqual(githubRepoArg('ssh://git@github.example.com:2222/org/repo.git'), { repo: 'github.example.com/org/repo' });
    // An ssh host of no known form may be an alias only ~/.ssh/config (which gh reads) resolves: left to gh.
    assert.deepEqual(githubRepoArg('git@work:org/repo.git'), { repo: null });
    assert.deepEqual(githubRepoArg('ssh://git@ghe.example.com:2222/org/repo.git'), { repo: null });
    assert.deepEqual(githubRepoArg('git@github.com:o/r.git'), { repo: 'o/r' });
    assert.deepEqual(githubRepoArg('https://github.com:443/o/r.git'), { repo: 'o/r' });
    assert.deepEqual(githubRepoArg('https://gitlab.example.com:8443/g/r.git'), { repo: null });
    assert.deepEqual(githubRepoArg('https://ghe.example.com/g/sub/r.git'), { repo: null });
    assert.deepEqual(githubRepoArg('/srv/git/r.git'), { repo: null });
    assert.equal(compareUrl('https://bitbucket.example.com:7990/o/r.git', 'b', 'main'), 'https://bitbucket.example.com:7990/o/r/pull-requests/new?source=b&dest=main');
    assert.equal(compareUrl('https://github.example.com:443/o/r.git', 'b', 'main'), 'https://github.example.com/o/r/compare/main...b?expand=1');
    assert.equal(compareUrl('https://dev.azure.com:443/org/proj/_git/repo', 'b', 'main'), 'https://dev.azure.com/org/proj/_git/repo/pullrequestcreate?sourceRef=b&targetRef=main');
  });

  it('gh: asks auth status, then pr create with head, base, title, body, draft; a failure says the branch was pushed', async () => {
    const repo = sb.repo();
    const log = sb.path('gh.log');
    const bin = fakeGh(sb.path(), log);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const url = await createPullRequestWithGh({ repo, branch: 'paddock/x', base: 'main', title: 'T', body: 'B', draft: true, ghRepo: 'o/r' }, env);
    assert.equal(url, 'https://github.com/o/r/pull/12');
    assert.deepEqual(ghCalls(log), [
      ['auth', 'status'],
      ['pr', 'create', '--head', 'paddock/x', '--base', 'main', '--title', 'T', '--body', 'B', '--draft', '--repo', 'o/r'],
    ]);
    const failing = fakeGh(sb.path(), sb.path('gh2.log'), { failCreate: true });
    await assert.rejects(
      createPullRequestWithGh({ repo, branch: 'paddock/x', base: 'main', title: 'T', body: 'B', draft: false, ghRepo: null }, { ...process.env, PATH: `${failing}:${process.env.PATH}` }),
      (e: PaddockError) => e.code === 'GH_FAILED' && /base branch missing/.test(e.message) && /was pushed/.test(e.message),
    );
    // Bug: a second `paddock pr` (more commits pushed to the open pull request) failed with exit 1
    // on gh's "already exists", and the landing kept the old commit.
    const existing = fakeGh(sb.path(), sb.path('gh4.log'), { existing: true });
    const again = await createPullRequestWithGh({ repo, branch: 'paddock/x', base: 'main', title: 'T', body: 'B', draft: false, ghRepo: 'o/r' }, { ...process.env, PATH: `${existing}:${process.env.PATH}` });
    assert.equal(again, 'https://github.com/o/r/pull/7', 'the open pull request the push updated');
    const loggedOut = fakeGh(sb.path(), sb.path('gh3.log'), { loggedOut: true });
    assert.equal(await createPullRequestWithGh({ repo, branch: 'b', base: 'main', title: 'T', body: 'B', draft: false, ghRepo: null }, { ...process.env, PATH: `${loggedOut}:${process.env.PATH}` }), null);
    assert.equal(await createPullRequestWithGh({ repo, branch: 'b', base: 'main', title: 'T', body: 'B', draft: false, ghRepo: null }, { ...process.env, PATH: '/nonexistent' }), null, 'no gh installed');
  });
});
