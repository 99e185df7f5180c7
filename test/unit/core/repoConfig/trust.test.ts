/** The allow list of `.paddock.json` files: a damaged list allows nothing and is never written over (bug 111). */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoConfigTrust, TRUST_FILE } from '../../../../src/core/repoConfig/trust';
import type { RepoConfigFile } from '../../../../src/core/repoConfig/paddockJson';

const file = (path: string, content = '{"check":"true"}'): RepoConfigFile => ({ path, content, config: { check: 'true' } });

describe('trusted configuration list', () => {
  let home!: string;
  beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'paddock-trust-'))));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const asides = () => readdirSync(home).filter((n) => n.startsWith(`${TRUST_FILE}.unreadable-`));

  it('keeps every earlier allow of a readable list, and says nothing', async () => {
    const trust = new RepoConfigTrust(home);
    assert.equal(await trust.allow(file('/r/one/.paddock.json')), undefined);
    assert.equal(await trust.allow(file('/r/two/.paddock.json')), undefined);
    assert.equal(await trust.isAllowed(file('/r/one/.paddock.json')), true);
    assert.equal(await trust.isAllowed(file('/r/two/.paddock.json')), true);
    assert.deepEqual(asides(), []);
  });

  const damages: [string, (list: string) => void, RegExp][] = [
    ['truncated', (list) => writeFileSync(list, '{"allowed": {"/r/one/.paddock.json": {"sha2'), /not valid JSON/],
    ['empty', (list) => writeFileSync(list, ''), /not valid JSON/],
    ['binary garbage', (list) => writeFileSync(list, Buffer.from([0xff, 0x00, 0x9c, 0x1b, 0x5b, 0x32, 0x4a])), /not valid JSON/],
    ['valid JSON of the wrong shape', (list) => writeFileSync(list, '{"allowed": {"/r/one/.paddock.json": {"sha256": "x"}}}'), /not a valid allow list/],
    ['a folder', (list) => mkdirSync(join(list, 'inside'), { recursive: true }), /folder, not a file/],
    ['a FIFO', (list) => execFileSync('mkfifo', [list]), /not a regular file \(a FIFO\)/],
    ['larger than 4 MiB', (list) => writeFileSync(list, `{"allowed": {}, "pad": "${'x'.repeat(4 * 1024 * 1024)}"}`), /larger than 4 MiB/],
  ];
  for (const [what, damage, why] of damages) {
    it(`moves a list that is ${what} aside before writing a new one, and says where (bug 111)`, async () => {
      const trust = new RepoConfigTrust(home);
      const list = join(home, TRUST_FILE);
      damage(list);
      const before = existsSync(join(list, 'inside')) || what === 'a FIFO' ? undefined : readFileSync(list);
      assert.equal(await trust.isAllowed(file('/r/one/.paddock.json')), false, 'a damaged list allows nothing');
      const note = await trust.allow(file('/r/two/.paddock.json'), new Date(1_700_000_000_000));
      const aside = `${list}.unreadable-1700000000000`;
      assert.ok(note?.startsWith('The earlier allow list could not be read ('), note);
      assert.ok(note?.endsWith(`); it was kept as ${aside}, and the new list allows only this file.`), note);
      assert.match(note!, why);
      assert.deepEqual(asides(), [`${TRUST_FILE}.unreadable-1700000000000`]);
      if (before) assert.deepEqual(readFileSync(aside), before, 'the damaged list is kept byte for byte');
      if (what === 'a folder') assert.ok(existsSync(join(aside, 'inside')));
      assert.equal(await trust.isAllowed(file('/r/two/.paddock.json')), true);
    });
  }

  // rename(2) replaces a file at the target without a word: the second list set aside in the same millisecond
  // (or after the clock stepped back) took the first one's name, and the first was gone.
  it('a second list moved aside at the same time gets a name of its own, and both are kept (bug 111)', async () => {
    const list = join(home, TRUST_FILE);
    const at = new Date(1000);
    writeFileSync(list, 'first damaged list');
    await new RepoConfigTrust(home).allow(file('/r/a/.paddock.json'), at);
    writeFileSync(list, 'second damaged list');
    const note = await new RepoConfigTrust(home).allow(file('/r/b/.paddock.json'), at);
    assert.ok(note?.includes(`it was kept as ${list}.unreadable-1000-2,`), note);
    rmSync(list);
    mkdirSync(join(list, 'third'), { recursive: true });
    assert.ok((await new RepoConfigTrust(home).allow(file('/r/c/.paddock.json'), at))?.includes(`${list}.unreadable-1000-3,`));
    assert.deepEqual(asides().sort(), [`${TRUST_FILE}.unreadable-1000`, `${TRUST_FILE}.unreadable-1000-2`, `${TRUST_FILE}.unreadable-1000-3`]);
    assert.equal(readFileSync(`${list}.unreadable-1000`, 'utf8'), 'first damaged list');
    assert.equal(readFileSync(`${list}.unreadable-1000-2`, 'utf8'), 'second damaged list');
    assert.ok(existsSync(join(`${list}.unreadable-1000-3`, 'third')));
    assert.equal(await new RepoConfigTrust(home).isAllowed(file('/r/c/.paddock.json')), true);
  });
});
