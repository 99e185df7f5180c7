/**
 * The shared path rules: `isWithin` on paths as given, and a real path with its fallback stated
 * by the caller (every error falls back; a caller for whom an error means something uses fs.realpath).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isWithin, realPathOr, realPathOrSync } from '../../../../src/core/common/paths';

describe('common paths', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'paddock-paths-')));
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    symlinkSync(path.join(dir, 'loop'), path.join(dir, 'loop'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('isWithin: the folder itself and what lies inside, never a sibling or a way out', () => {
    assert.equal(isWithin('/a/b', '/a/b'), true);
    assert.equal(isWithin('/a/b/c', '/a/b'), true);
    assert.equal(isWithin('/a/b-2', '/a/b'), false);
    assert.equal(isWithin('/a/b/../x', '/a/b'), false);
  });

  it('resolves links, and gives the fallback (its own, whatever it is) for a path gone or a loop', async () => {
    const link = path.join(dir, 'link');
    const gone = path.join(dir, 'gone');
    const loop = path.join(dir, 'loop');
    assert.equal(await realPathOr(link, null), path.join(dir, 'real'));
    assert.equal(realPathOrSync(link, null), path.join(dir, 'real'));
    assert.equal(await realPathOr(gone, gone), gone);
    assert.equal(await realPathOr(loop, null), null);
    assert.equal(await realPathOr(gone, undefined), undefined);
    assert.equal(realPathOrSync(gone, gone), gone);
    assert.equal(realPathOrSync(loop, null), null);
  });

});
