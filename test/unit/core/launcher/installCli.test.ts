/**
 * "Install 'paddock' Command in PATH", core part: the launcher it writes really
 * runs the bundled CLI (dist/cli.js, `npm run build`) with the given runtime
 * and pins the store when one is set.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCli, installTargets } from '../../../../src/core/launcher/installCli';
import { cancelQueued } from '../../../../src/core/operations/cancelQueued';
import { JobStore } from '../../../../src/core/store';
import { CLI_SCRIPT, requireBuild } from '../coordinator/coordinatorFixture';
import { DEFAULT_SETTINGS } from '../worker/fixtures';

/** Runs `paddock ARGS` from `bin` with a PATH of `bin` and the system folders, as a new shell would. */
function runPaddock(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('paddock', args, {
    encoding: 'utf8',
    env: { HOME: process.env.HOME, PATH: `${bin}:/usr/bin:/bin`, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('installCli (the paddock launcher on PATH)', () => {
  let root: string;
  before(requireBuild);
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'paddock-install-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes an executable launcher that runs the bundled CLI: paddock --help', () => {
    const bin = join(root, 'not', 'yet', 'bin');
    const written = installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT });
    assert.equal(written, join(bin, 'paddock'));
    assert.equal(statSync(written).mode & 0o777, 0o755);
    const help = runPaddock(bin, ['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /paddock list/);
  });

  it('pins the store when one is set: paddock list shows its agents whatever PADDOCK_HOME says', async () => {
    const home = join(root, 'store');
    const store = new JobStore({ home });
    const job = await store.create({
      title: 'listed through the launcher',
      repo: root,
      worktree: null,
      branch: null,
      base: null,
      baseSha: null,
      profile: null,
      command: ['true'],
      cwd: root,
      envNames: [],
      settings: DEFAULT_SETTINGS,
    });
    // Stopped before it ran: a queued record with nothing to launch it would have `list` start a background coordinator.
    await cancelQueued(store, job.id, 'stopped before it started');
    const bin = join(root, 'bin');
    installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT, home });
    const listed = runPaddock(bin, ['list', '--json'], { PADDOCK_HOME: join(root, 'another-store') });
    assert.equal(listed.status, 0, listed.stderr);
    const ids = (JSON.parse(listed.stdout) as { id: string }[]).map((j) => j.id);
    assert.deepEqual(ids, [job.id]);
  });

  it('without a store setting, the CLI uses PADDOCK_HOME as usual', () => {
    const bin = join(root, 'bin');
    installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT });
    const listed = runPaddock(bin, ['list', '--json'], { PADDOCK_HOME: join(root, 'empty-store') });
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), []);
    assert.doesNotMatch(readFileSync(join(bin, 'paddock'), 'utf8'), /PADDOCK_HOME/);
  });

  it('replaces its own launcher, and says one sentence when the CLI bundle it names is gone', () => {
    const bin = join(root, 'bin');
    const oldCli = join(root, 'old-extension', 'dist', 'cli.js');
    mkdirSync(join(root, 'old-extension', 'dist'), { recursive: true });
    writeFileSync(oldCli, '');
    installCli({ dir: bin, execPath: process.execPath, cliScript: oldCli });
    rmSync(join(root, 'old-extension'), { recursive: true });
    const stale = runPaddock(bin, ['list']);
    assert.equal(stale.status, 1);
    assert.equal(stale.stderr.trim().split('\n').length, 1);
    assert.match(stale.stderr, /run "Paddock: Install 'paddock' Command in PATH" again/);
    installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT });
    assert.equal(runPaddock(bin, ['--help']).status, 0);
  });

  it('writes through the durable write: a file lying at a temp name is never written through, none is left', () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // The temp name the install used to write (its own pid), as a link to another file.
    const other = join(root, 'other');
    writeFileSync(other, 'not the launcher\n');
    symlinkSync(other, join(bin, `paddock.${process.pid}.tmp`));
    const written = installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT });
    assert.equal(readFileSync(other, 'utf8'), 'not the launcher\n');
    assert.ok(lstatSync(written).isFile(), 'paddock is a file of its own, not a link');
    assert.equal(statSync(written).mode & 0o777, 0o755 & ~process.umask());
    assert.deepEqual(readdirSync(bin).sort(), ['paddock', `paddock.${process.pid}.tmp`]);
    assert.equal(runPaddock(bin, ['--help']).status, 0);
  });

  it('refuses to overwrite a paddock it did not write', () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'paddock'), '#!/bin/sh\necho mine\n');
    assert.throws(
      () => installCli({ dir: bin, execPath: process.execPath, cliScript: CLI_SCRIPT }),
      /already exists and was not written by Paddock/,
    );
    assert.equal(readFileSync(join(bin, 'paddock'), 'utf8'), '#!/bin/sh\necho mine\n');
  });

  it('offers the system folder and ~/.local/bin, each writable or not, and knows which are on PATH', () => {
    // A folder under a regular file can be created by nobody, root included.
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, '');
    const fakeHome = join(root, 'person');
    const targets = installTargets(fakeHome, { PATH: `/usr/bin:${join(fakeHome, '.local', 'bin')}` }, join(blocked, 'bin'));
    assert.deepEqual(targets, [
      { dir: join(blocked, 'bin'), writable: false, onPath: false },
      { dir: join(fakeHome, '.local', 'bin'), writable: true, onPath: true },
    ]);
  });
});
