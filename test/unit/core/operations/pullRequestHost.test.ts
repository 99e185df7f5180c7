/**
 * Create Pull Request names the repository to gh as gh reaches it: a GitHub Enterprise server on a
 * port of its own (https://ghe.example.com:8443/…) with that port, an ssh remote's host without
 * the ssh server's port, github.com without a host (bug 98). Checked through the operation, with
 * a fake gh on PATH that records its arguments; the pushes go to a bare repository (pushurl).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';
import { fakeGh, ghCalls } from '../git/fakeGh';

describe('pull request: the repository gh is given keeps the web port', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('an https remote on :8443 is HOST:8443/OWNER/REPO; an ssh remote on :2222 is HOST/OWNER/REPO; github.com (even :443) is OWNER/REPO', async () => {
    const bare = join(sb.root, 'remote.git');
    git(sb.root, 'init', '-q', '--bare', bare);
    git(sb.repo, 'remote', 'add', 'origin', bare);
    git(sb.repo, 'remote', 'set-url', '--push', 'origin', bare);
    const job = await sb.coordinator().start({ repo: sb.repo, command: ['sh', '-c', 'echo a > a.txt && git add -A && git commit -qm a'], title: 'adds a' });
    const a = await sb.waitEnded(job.id);
    const bin = join(sb.root, 'bin');
    mkdirSync(bin);
    const cases: [string, string][] = [
      ['https://ghe.example.com:8443/org/repo.git', 'ghe.example.com:8443/org/repo'],
      ['https://token@GHE.example.com:8443/org/repo', 'ghe.example.com:8443/org/repo'],
      ['http://ghe.internal:8080/org/repo.git', 'ghe.internal:8080/org/repo'],
      ['ssh://git@ghe.example.com:2222/org/repo.git', 'ghe.example.com/org/repo'],
      ['git@ghe.example.com:org/repo.git', 'ghe.example.com/org/repo'],
      ['https://ghe.example.com:443/org/repo.git', 'ghe.example.com/org/repo'],
      ['https://github.com:443/o/r.git', 'o/r'],
    ];
    for (const [i, [url, expected]] of cases.entries()) {
      git(sb.repo, 'remote', 'set-url', 'origin', url);
      const log = join(sb.root, `gh${i}.log`);
      fakeGh(bin, log);
      const c = sb.coordinator({}, { env: { ...sb.env, PATH: `${bin}:${sb.env.PATH}` } });
      const report = await c.pullRequest(a.id);
      assert.equal(report.opened, true, url);
      const create = ghCalls(log)[1];
      assert.deepEqual(create.slice(-2), ['--repo', expected], url);
    }
    assert.equal(git(bare, 'rev-parse', a.branch!), git(sb.repo, 'rev-parse', a.branch!), 'pushed');
  });
});
