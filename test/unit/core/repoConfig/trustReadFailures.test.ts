/**
 * The allow list when a call fails, not its contents (bug 111): a list that could not be opened this
 * time is left as it is, a rename that fails leaves it too, and a new list that could not be written
 * puts the one moved aside back. Each runs `allow` in a child: with few descriptors, a file size limit
 * of 0, or as the user nobody (those need root to switch to; skipped otherwise).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoConfigTrust, TRUST_FILE } from '../../../../src/core/repoConfig/trust';
import type { RepoConfigFile } from '../../../../src/core/repoConfig/paddockJson';

const TRUST_MODULE = require.resolve('../../../../src/core/repoConfig/trust');
const NOBODY = 65534;
const file = (path: string): RepoConfigFile => ({ path, content: '{"check":"true"}', config: { check: 'true' } });

/**
 * Runs `allow` of /r/three in a child: `before` runs first (after one allow of /r/warm, which loads
 * every module while descriptors are free), `after` once it is done. Returns its note or its error.
 */
function allowInChild(home: string, opts: { limits?: string; asNobody?: boolean; before?: string; after?: string }): { note?: string | null; error?: string } {
  const script = `
    const { RepoConfigTrust } = require(${JSON.stringify(TRUST_MODULE)});
    const fs = require('node:fs');
    const f = (p) => ({ path: p, content: '{"check":"true"}', config: { check: 'true' } });
    (async () => {
      const trust = new RepoConfigTrust(${JSON.stringify(home)});
      ${opts.before ?? ''}
      let out;
      try { out = { note: (await trust.allow(f('/r/three/.paddock.json'))) ?? null }; } catch (e) { out = { error: e.message }; }
      ${opts.after ?? ''}
      process.stdout.write(JSON.stringify(out));
    })();
  `;
  const node = opts.asNobody ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath] : [process.execPath];
  const command = [...node, '-e', script].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const res = spawnSync('sh', ['-c', `${opts.limits ?? ''} exec ${command}`], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout) as { note?: string | null; error?: string };
}

describe('trusted configuration list: failures of the calls, not of the contents (bug 111)', function () {
  this.timeout(60_000);
  let home!: string;
  let list!: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'paddock-trust-'));
    list = join(home, TRUST_FILE);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const others = () => readdirSync(home).filter((n) => n !== TRUST_FILE && n !== `${TRUST_FILE}.lock`);
  const asRoot = function (this: Mocha.Context) {
    if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) this.skip();
  };

  it('a list that could not be opened for want of descriptors (EMFILE) is left as it is, and nothing is allowed', async () => {
    const trust = new RepoConfigTrust(home);
    await trust.allow(file('/r/one/.paddock.json'));
    await trust.allow(file('/r/two/.paddock.json'));
    const res = allowInChild(home, {
      limits: 'ulimit -S -n 64;',
      before: `await trust.allow(f('/r/warm/.paddock.json')); const fds = []; try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch {}`,
      after: 'for (const fd of fds) fs.closeSync(fd);',
    });
    assert.equal(res.error, `The allow list ${list} cannot be read (too many files are open); nothing was allowed and it was left as it is.`);
    assert.deepEqual(others(), [], 'nothing was moved aside');
    assert.ok(readFileSync(list, 'utf8').includes('/r/warm/.paddock.json'));
    assert.equal(await trust.isAllowed(file('/r/one/.paddock.json')), true, 'the earlier allows are all there');
    assert.equal(await trust.isAllowed(file('/r/two/.paddock.json')), true);
    assert.equal(await trust.isAllowed(file('/r/three/.paddock.json')), false);
  });

  it('a list its user may not read (EACCES) is left as it is, and nothing is allowed', async function () {
    asRoot.call(this);
    await new RepoConfigTrust(home).allow(file('/r/one/.paddock.json'));
    const before = readFileSync(list);
    chownSync(home, NOBODY, NOBODY);
    chownSync(list, NOBODY, NOBODY);
    chmodSync(list, 0o000);
    const res = allowInChild(home, { asNobody: true });
    assert.equal(res.error, `The allow list ${list} cannot be read (permission is denied); nothing was allowed and it was left as it is.`);
    assert.deepEqual(others(), []);
    assert.deepEqual(readFileSync(list), before);
  });

  it('allows nothing when the damaged list cannot be moved aside, and leaves it as it is', async function () {
    asRoot.call(this);
    // A folder anyone may write to with the sticky bit: nobody may add names to it, not rename root's list.
    chmodSync(home, 0o1777);
    writeFileSync(list, 'garbage');
    const res = allowInChild(home, { asNobody: true });
    assert.equal(
      res.error,
      `The allow list ${list} cannot be read (it is not valid JSON) and could not be moved aside: permission is denied; nothing was allowed and it was left as it is.`,
    );
    assert.equal(readFileSync(list, 'utf8'), 'garbage');
    assert.deepEqual(others(), [], 'the name claimed for it is given up');
  });

  it('a new list that could not be written puts the damaged one back where it was', () => {
    writeFileSync(list, '{"allowed": {"/r/one/.paddock.json": ');
    // No file may grow past 0 bytes: the move aside works, the new list's write fails (EFBIG; the signal
    // that comes with it is caught, as a write from libuv's pool would otherwise end the process).
    const res = allowInChild(home, { limits: 'ulimit -S -f 0;', before: "process.on('SIGXFSZ', () => undefined);" });
    assert.equal(res.error, `The allow list ${list} could not be written (it would pass the limit on a file's size); nothing was allowed and the list was left as it was.`);
    assert.equal(readFileSync(list, 'utf8'), '{"allowed": {"/r/one/.paddock.json": ');
    assert.deepEqual(others(), [], 'no list aside, no temp file');
  });
});
