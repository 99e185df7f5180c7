/**
 * The README's pictures are the ones a host-test run takes: every image it links exists, and
 * is a file the UI harness (scripts/host-test.mjs) writes into media/screenshots after asserting
 * in the page what the picture's caption says; every picture the harness takes is shown.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..', '..');

describe("README images are the UI harness's screenshots", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const harness = fs.readFileSync(path.join(ROOT, 'scripts', 'host-test.mjs'), 'utf8');
  const linked = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  const taken = [...harness.matchAll(/join\(screenshotsDir, '([^']+\.png)'\)/g)].map((m) => `media/screenshots/${m[1]}`);

  it('the harness writes its screenshots into media/screenshots', () => {
    assert.match(harness, /const screenshotsDir = join\(root, 'media', 'screenshots'\);/);
    assert.ok(taken.length >= 3, `screenshots taken: ${taken.join(', ')}`);
  });

  it('every image the README links exists and is one the harness takes', () => {
    assert.ok(linked.length > 0);
    for (const link of linked) {
      assert.ok(fs.existsSync(path.join(ROOT, link)), `${link} is linked but missing`);
      assert.ok(taken.includes(link), `${link} is linked but no harness step writes it (it writes ${taken.join(', ')})`);
    }
  });

  it('every screenshot the harness takes is shown in the README', () => {
    for (const shot of taken) assert.ok(linked.includes(shot), `${shot} is taken but the README does not show it`);
  });
});
