/** Windows gets one sentence and nothing that half-works: the CLI and the extension check the platform first. */
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runCli } from '../../../../src/cli/main';
import { unsupportedPlatformMessage } from '../../../../src/core/common/platform';

describe('common/platform', () => {
  it('runs on Linux and macOS, and names WSL or Remote on Windows', () => {
    assert.equal(unsupportedPlatformMessage('linux'), null);
    assert.equal(unsupportedPlatformMessage('darwin'), null);
    assert.match(unsupportedPlatformMessage('win32') ?? '', /WSL.*Remote/);
    assert.match(unsupportedPlatformMessage('freebsd') ?? '', /not on freebsd/);
  });

  it('the CLI on Windows exits 1 with that one sentence and runs no command', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d) => (err += String(d)));
    const code = await runCli(['list'], { io: { stdin: process.stdin, stdout, stderr }, env: {} } as never, 'win32');
    assert.equal(code, 1);
    assert.equal(err, `paddock: ${unsupportedPlatformMessage('win32')}\n`);
    assert.equal(stdout.read(), null);
  });
});
