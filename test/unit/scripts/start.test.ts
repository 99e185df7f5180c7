import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** `npm start` on a machine without what it needs: the newcomer's very first command (issue 20). */
describe('npm start (scripts/start.mjs)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'paddock-start-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('says in one line what is missing and how to install it, without a stack trace, and exits 1', function () {
    // The scripts as shipped, readable by anyone (the run below may be another user's).
    const scripts = join(dir, 'scripts');
    cpSync(resolve('scripts/start.mjs'), join(scripts, 'start.mjs'));
    cpSync(resolve('scripts/lib'), join(scripts, 'lib'), { recursive: true });
    // dpkg knows none of the packages: a fresh machine.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'dpkg-query'), '#!/bin/sh\nexit 1\n');
    chmodSync(bin, 0o755);
    chmodSync(join(bin, 'dpkg-query'), 0o755);
    chmodSync(dir, 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: join(dir, 'home') };
    // As root it would install them itself: the newcomer is a normal user.
    const asRoot = process.getuid?.() === 0;
    if (asRoot && spawnSync('setpriv', ['--version']).status !== 0) this.skip();
    const command = asRoot
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(scripts, 'start.mjs')]]
      : [process.execPath, [join(scripts, 'start.mjs')]];
    const res = spawnSync(command[0] as string, command[1] as string[], { env, encoding: 'utf8', cwd: dir, timeout: 20_000 });
    assert.equal(res.status, 1, res.stderr);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^npm start: Missing Debian packages: install them with "sudo apt-get install -y [a-z0-9 .+-]+", then re-run\.\n$/);
  });
});
