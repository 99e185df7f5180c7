/** main.ts's lazy command table: every verb loads its module, --help lists them all, nothing loads before it is needed. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { COMMANDS, helpText } from '../../../src/cli/main';

describe('cli command table', () => {
  it('each verb loads the command of that name, and --help lists every usage', () => {
    const help = helpText();
    for (const [verb, load] of Object.entries(COMMANDS)) {
      const command = load();
      assert.equal(command.name, verb);
      assert.ok(help.includes(command.usage), `--help lists ${verb}`);
    }
  });

  it('loading the CLI loads no command module and no store lock library', () => {
    const main = require.resolve('../../../src/cli/main');
    const probe = `require(${JSON.stringify(main)});
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify(loaded.filter((f) => /[\\\\/]cli[\\\\/]commands[\\\\/]|proper-lockfile|@xterm/.test(f))));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })) as string[];
    assert.deepEqual(loaded, []);
  });
});
