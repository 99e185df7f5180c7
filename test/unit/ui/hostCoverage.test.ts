/**
 * Every command Paddock contributes runs at least once in a real VS Code: through
 * `vscode.commands.executeCommand('paddock.<verb>', …)` in a host suite (test/host), or, for the
 * ones that act on the whole window or open another one, from the palette or a row's menu in the
 * UI harness (scripts/host-test.mjs), found there by the title a person clicks. A command added
 * without such a run fails here. Exemptions are only for commands that cannot run headless.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..', '..');

/** Commands that cannot run in a headless host, with the reason. None today. */
const CANNOT_RUN_HEADLESS: Record<string, string> = {};

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { commands: { command: string; title: string }[] } };
const bundle = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function hostSuites(): string {
  const dir = path.join(ROOT, 'test', 'host');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

function titleOf(command: { title: string }): string {
  const key = /^%(.+)%$/.exec(command.title)?.[1];
  return key ? bundle[key] : command.title;
}

describe('every contributed command runs in the host suites or the UI harness', () => {
  const suites = hostSuites();
  const harness = fs.readFileSync(path.join(ROOT, 'scripts', 'host-test.mjs'), 'utf8');

  /** How the command is run, or undefined when nothing runs it. */
  function runBy(command: { command: string; title: string }): string | undefined {
    // executeCommand itself, or a suite's helper that passes the row's node to it (runOnRow).
    if (new RegExp(`(executeCommand|runOnRow)(<[^>]*>)?\\(\\s*'${escape(command.command)}'`).test(suites)) return 'host suite';
    const title = titleOf(command);
    if (new RegExp(`runPaletteCommand\\(page, '${escape(`Paddock: ${title}`)}'`).test(harness)) return 'harness (palette)';
    if (new RegExp(`runRowMenuCommand\\(page, [^,]+, '${escape(title)}'`).test(harness)) return 'harness (row menu)';
    return undefined;
  }

  it('no contributed command is left without a run', () => {
    const missing = manifest.contributes.commands.filter((c) => !(c.command in CANNOT_RUN_HEADLESS) && runBy(c) === undefined).map((c) => c.command);
    assert.deepEqual(missing, [], `contributed commands no host test or harness step runs: ${missing.join(', ')}`);
  });

  it('the exemptions name contributed commands, each with its reason', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [id, reason] of Object.entries(CANNOT_RUN_HEADLESS)) {
      assert.ok(contributed.has(id), `${id} is exempt but not contributed`);
      assert.ok(reason.length > 20, `${id}: say why it cannot run headless`);
    }
  });

  it('tells each way of running a command apart (the check above is only as good as this)', () => {
    const byId = (id: string) => manifest.contributes.commands.find((c) => c.command === id)!;
    assert.equal(runBy(byId('paddock.copyBranch')), 'host suite');
    assert.equal(runBy(byId('paddock.stopAll')), 'harness (palette)');
    assert.equal(runBy(byId('paddock.openWorktree')), 'harness (row menu)');
    assert.equal(runBy({ command: 'paddock.neverContributed', title: 'Never Contributed' }), undefined);
  });
});
