// What a packaged VSIX holds, and whether that is what should ship: the bundles, the icon, the
// manifest with its strings, README, CHANGELOG and LICENSE; never tests, source maps, sources,
// compiled tests or the developers' docs. Used by scripts/host-test.mjs after `npm run package`.
import { readFileSync } from 'node:fs';

/** The file names in a zip archive, read from its central directory (a VSIX is a zip). */
export function zipEntries(file) {
  const zip = readFileSync(file);
  // End of central directory: signature 0x06054b50, at most 64 KiB of comment after it.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip archive`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: broken central directory`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const REQUIRED = [
  'extension/package.json',
  'extension/package.nls.json',
  'extension/media/icon.png',
  'extension/dist/extension.js',
  'extension/dist/worker.js',
  'extension/dist/workerMain.js',
  'extension/dist/cli.js',
  'extension/dist/cliMain.js',
  'extension/dist/screenText.js',
  'extension/readme.md',
  'extension/changelog.md',
  'extension/LICENSE.txt',
];

const FORBIDDEN = [
  [/\.map$/, 'a source map'],
  [/^extension\/(src|test|out|scripts|node_modules|\.vscode|\.ci|test-results)\//, 'a development folder'],
  [/\.test\.[cm]?[jt]s$/, 'a test'],
  [/\.ts$/, 'TypeScript source'],
  [/^extension\/docs\/testing\.md$/, 'a developers\' doc'],
  [/\.vsix$/, 'another VSIX'],
];

/** Problems with a VSIX's file list, one sentence each; empty when it is as it should be. */
export function vsixProblems(entries) {
  const problems = [];
  const present = new Set(entries);
  for (const file of REQUIRED) if (!present.has(file)) problems.push(`${file} is missing`);
  for (const entry of entries) {
    const hit = FORBIDDEN.find(([pattern]) => pattern.test(entry));
    if (hit) problems.push(`${entry} is ${hit[1]} and must not ship`);
  }
  return problems;
}
