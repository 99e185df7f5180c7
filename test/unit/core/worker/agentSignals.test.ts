/**
 * "Needs you", exactly: Claude Code's hooks (passed with --settings) and
 * Codex's notify program reach the worker through the `paddock` launcher the
 * worker puts first on the agent's PATH. The agents here are real programs
 * that behave as those agents do: a fake `claude` that reads --settings and
 * runs the hooks with JSON on stdin, a fake `codex` that calls its notify
 * program with a JSON argument.
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { CLI_SCRIPT, CoordinatorSandbox, useCoordinatorSandbox } from '../coordinator/coordinatorFixture';

const FAKE_CLAUDE = `#!/usr/bin/env node
const { execSync } = require('node:child_process');
const argv = process.argv.slice(2);
const settings = JSON.parse(argv[argv.indexOf('--settings') + 1]);
const run = (event) => execSync(settings.hooks[event][0].hooks[0].command, { input: JSON.stringify({ hook_event_name: event, message: 'Claude needs your permission' }), stdio: ['pipe', 'inherit', 'inherit'] });
console.log('claude argv: ' + JSON.stringify(argv.filter((a) => a !== argv[argv.indexOf('--settings') + 1])));
run('Notification');
process.stdin.once('data', () => {
  run('UserPromptSubmit');
  console.log('working');
  setTimeout(() => process.exit(0), 60000);
});
`;

const FAKE_CODEX = `#!/usr/bin/env node
const { execFileSync } = require('node:child_process');
const argv = process.argv.slice(2);
const notify = JSON.parse(argv[argv.indexOf('-c') + 1].replace(/^notify=/, ''));
execFileSync(notify[0], [...notify.slice(1), JSON.stringify({ type: 'agent-turn-complete', 'last-assistant-message': 'done' })], { stdio: 'inherit' });
setTimeout(() => process.exit(0), 60000);
`;

describe('agents report waiting through their own hooks', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  function fakeBin(name: string, script: string): void {
    const bin = join(sb.root, 'fakebin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
    sb.env.PATH = `${bin}:${sb.env.PATH}`;
  }

  it('Claude Code: a Notification hook makes it waiting (signal), the next prompt running', async () => {
    fakeBin('claude', FAKE_CLAUDE);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'claude', prompt: '-- not an option' });
    assert.deepEqual(job.command.slice(0, 2), ['claude', '--settings']);
    const waiting = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'waiting', 15_000);
    assert.equal(waiting.lifecycle.waitingReason, 'signal');
    execFileSync(process.execPath, [CLI_SCRIPT, 'send', job.id, 'go on'], { env: sb.env });
    await sb.waitFor(job.id, (j) => j.lifecycle.state === 'running');
    await c.stop(job.id, { force: true });
  });

  it('`start -- claude …` without a profile is matched to the claude profile and gets its hooks', async () => {
    fakeBin('claude', FAKE_CLAUDE);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, command: ['claude', '--model', 'x'] });
    assert.equal(job.profile, 'claude');
    assert.equal(job.command[1], '--settings');
    assert.deepEqual(job.command.slice(3), ['--model', 'x']);
    const waiting = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'waiting', 15_000);
    assert.equal(waiting.lifecycle.waitingReason, 'signal');
    await c.stop(job.id, { force: true });
  });

  it('Codex: its notify program (with the JSON argument it appends) makes it waiting', async () => {
    fakeBin('codex', FAKE_CODEX);
    const c = sb.coordinator();
    const job = await c.start({ repo: sb.repo, profile: 'codex', prompt: 'fix it' });
    const waiting = await sb.waitFor(job.id, (j) => j.lifecycle.state === 'waiting', 15_000);
    assert.equal(waiting.lifecycle.waitingReason, 'signal');
    await c.stop(job.id, { force: true });
  });
});
