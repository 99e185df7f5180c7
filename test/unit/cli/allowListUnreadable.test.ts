/**
 * An allow list that could not be read this time is not a file that is not allowed (bug 126): `start`
 * and `check` said "not allowed … run paddock allow", of a file that was allowed, and `paddock allow`
 * then refused the unread list too. They say the list could not be read, and why, in one sentence.
 * The list is made unreadable as a loop of symbolic links: the same failure to read as a list
 * denied for want of descriptors or permission, without needing either (or root).
 */
import * as assert from 'node:assert/strict';
import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRepoConfig } from '../../../src/core/repoConfig/paddockJson';
import { RepoConfigTrust, TRUST_FILE } from '../../../src/core/repoConfig/trust';
import { assertOneSentence, CoordinatorSandbox, git, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

describe('CLI: an allow list that could not be read (bug 126)', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });

  /** Commits `.paddock.json` and allows it, as `paddock allow` does. */
  async function allowedConfig(config: object): Promise<void> {
    writeFileSync(join(sb.repo, '.paddock.json'), JSON.stringify(config));
    git(sb.repo, 'add', '.paddock.json');
    git(sb.repo, 'commit', '-qm', 'config');
    await new RepoConfigTrust(sb.home).allow((await readRepoConfig(sb.repo))!);
  }

  /** The list out of its place for the duration of `run`, a loop of symbolic links standing there. */
  async function withListUnreadable<T>(run: () => Promise<T>): Promise<T> {
    const list = join(sb.home, TRUST_FILE);
    renameSync(list, `${list}.away`);
    symlinkSync(TRUST_FILE, list);
    try {
      return await run();
    } finally {
      renameSync(`${list}.away`, list);
    }
  }

  it('start says the list could not be read, not that the allowed file is not allowed', async () => {
    await allowedConfig({ setup: 'echo set-up > setup.txt' });
    const list = join(sb.home, TRUST_FILE);
    const refused = await withListUnreadable(() => cli(['start', '--', 'true']));
    assert.equal(refused.code, 1);
    assertOneSentence(refused.stderr);
    assert.equal(
      refused.stderr,
      `paddock start: The allow list ${list} could not be read (it is a loop of symbolic links), so the setup command of ${join(sb.repo, '.paddock.json')} will not run.\n`,
    );
    const started = await cli(['start', '--', 'true']);
    assert.equal(started.code, 0, `the list back, the allowed setup runs: ${started.stderr}`);
  });

  it('check says the list could not be read (status 1), not "run paddock allow"', async () => {
    const started = await cli(['start', '--', 'true']);
    const id = started.stdout.trim();
    await sb.waitEnded(id);
    await allowedConfig({ check: 'true' });
    const refused = await withListUnreadable(() => cli(['check', id]));
    assert.equal(refused.code, 1);
    assertOneSentence(refused.stderr);
    assert.equal(
      refused.stderr,
      `paddock check: The allow list ${join(sb.home, TRUST_FILE)} could not be read (it is a loop of symbolic links), so the check command of ${join(sb.repo, '.paddock.json')} will not run.\n`,
    );
    const passed = await cli(['check', id]);
    assert.equal(passed.code, 0, passed.stderr);
  });
});
