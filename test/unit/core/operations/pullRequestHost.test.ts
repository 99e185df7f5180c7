/**
 * Create Pull Request names the repository to gh as gh reaches it (bug 92): an ssh remote's host
 * without the ssh server's port, github.com without a host, an ssh host of no known form not at all
 * (it may be an alias only ~/.ssh/config resolves, which gh reads). A server whose web pages are on
 * a port of its own is not given to gh at all — gh takes no port in a host (cli/cli#6845) and,
 * left to itself, drops it — the compare page (which keeps the port) is given, with one sentence
 * why gh was not used. Checked through the operation, with a fake gh on PATH
 * that records its arguments; the pushes go to a bare repository (pushurl).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { fakeGh, ghCalls } from '../git/fakeGh';

describe('pull request: the repository gh is given, and no port', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('ssh remotes: HOST/OWNER/REPO for GitHub by name, none for a host alias; github.com (even :443) is OWNER/REPO; a server on its own port: no gh, the compare page and why', async () => {
    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    git(sb.repo, 'remote', 'set-url', '--push', 'origin', bare);
    const job = await sb.coordinator().start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm a'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    const branch = encodeURIComponent(a.branch!);
    // [remote, gh's --repo (null: none) or, when gh is not to be used, the page given]
    const cases: [string, { repo: string | null } | { page: string | null }][] = [
      ['ssh://git@github.example.com:2222/org/repo.git', { repo: 'github.example.com/org/repo' }],
      ['git@work:org/repo.git', { repo: null }],
      ['ssh://git@ghe.example.com:2222/org/repo.git', { repo: null }],
      ['https://ghe.example.com:443/org/repo.git', { repo: 'ghe.example.com/org/repo' }],
      ['https://github.com:443/o/r.git', { repo: 'o/r' }],
      ['https://github.example.com:8443/org/repo.git', { page: `https://github.example.com:8443/org/repo/compare/main...${branch}?expand=1` }],
      ['https://token@GHE.example.com:8443/org/repo', { page: null }],
      ['http://ghe.internal:8080/org/repo.git', { page: null }],
    ];
    for (const [i, [url, expected]] of cases.entries()) {
      git(sb.repo, 'remote', 'set-url', 'origin', url);
      const log = join(sb.root, `gh${i}.log`);
      fakeGh(bin, log);
      const c = sb.coordinator({}, { env: { ...sb.env, PATH: `${bin}:${sb.env.PATH}` } });
      const report = await c.pullRequest(a.id);
      if ('repo' in expected) {
        assert.equal(report.opened, true, url);
        const create = ghCalls(log)[1];
        const at = create.indexOf('--repo');
        assert.deepEqual(at < 0 ? null : create[at + 1], expected.repo, url);
        assert.equal(report.ghNotUsed, undefined, url);
      } else {
        assert.equal(existsSync(log), false, `${url}: gh was not run`);
        assert.equal(report.opened, false, url);
        assert.equal(report.url, expected.page, url);
        assert.match(report.ghNotUsed ?? '', /^gh was not used: it cannot reach a server on a port of its own \(https?:\/\/[a-z.]+:\d+\)\.$/, url);
      }
    }
    assert.equal(git(bare, 'rev-parse', a.branch!), git(sb.repo, 'rev-parse', a.branch!), 'pushed');
  });
});
