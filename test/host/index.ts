/**
 * Runs inside the VS Code extension host (loaded through `extensionTestsPath`).
 * Executes every compiled `*.test.js` under test/host with mocha and, besides
 * resolving/rejecting for VS Code, writes a JSON summary to
 * $PADDOCK_HOST_TEST_RESULTS so the harness can print failures plainly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

interface FailureReport {
  title: string;
  error: string;
}

function findTests(dir: string, out: string[] = []): string[] {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec', forbidOnly: true });
  const grep = process.env.PADDOCK_HOST_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of findTests(__dirname)) mocha.addFile(file);
  const resultsFile = process.env.PADDOCK_HOST_TEST_RESULTS;
  return new Promise((resolve, reject) => {
    const failures: FailureReport[] = [];
    let passed = 0;
    let skipped = 0;
    const runner = mocha.run((failed) => {
      if (resultsFile) {
        fs.writeFileSync(resultsFile, JSON.stringify({ passed, failed, skipped, failures }, null, 2));
      }
      if (failed > 0) reject(new Error(`${failed} host test(s) failed`));
      else resolve();
    });
    runner.on('pass', () => passed++);
    runner.on('pending', () => skipped++);
    runner.on('fail', (test, err: Error) => {
      failures.push({ title: test.fullTitle(), error: String(err?.stack ?? err) });
    });
  });
}
