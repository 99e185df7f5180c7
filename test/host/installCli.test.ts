/**
 * Paddock: Install 'paddock' Command in PATH, in the real extension host: the
 * launcher it writes runs the extension's own CLI bundle with the host's
 * runtime, on the store the window uses.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { env, paddock } from './helpers';

describe("Install 'paddock' Command in PATH", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paddock-host-bin-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a launcher into the folder given that runs the bundled CLI with the host runtime', async () => {
    await paddock();
    const bin = join(dir, 'bin');
    const written = await vscode.commands.executeCommand<unknown>('paddock.installCli', bin);
    assert.equal(written, join(bin, 'paddock'));
    const script = readFileSync(join(bin, 'paddock'), 'utf8');
    assert.ok(script.includes(process.execPath), 'the launcher runs the host runtime');
    assert.ok(script.includes(join(paddockExtensionPath(), 'dist', 'cli.js')), 'the launcher runs the extension\'s CLI bundle');
    const help = execFileSync(join(bin, 'paddock'), ['--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME } });
    assert.match(help, /paddock list/);
    // With no store setting, `paddock` uses PADDOCK_HOME like the window does: it lists the window's agents.
    const listed = JSON.parse(execFileSync(join(bin, 'paddock'), ['list', '--json'], { encoding: 'utf8', env: { ...process.env } })) as { id: string }[];
    assert.ok(listed.some((job) => job.id === env('PADDOCK_HOST_PRESTARTED_RUNNING')), 'paddock list shows the window\'s agents');
  });
});

function paddockExtensionPath(): string {
  const ext = vscode.extensions.getExtension('paddock.paddock');
  if (!ext) throw new Error('Paddock is not loaded');
  return ext.extensionPath;
}
