import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRunnable, builtinProfiles, expandArgs, findProgram, profileNames, resolveProfile } from '../../../../src/core/profiles';

describe('profiles', () => {
  const env = { PATH: '/usr/bin:/bin', SHELL: '/bin/zsh-test' };

  it('has built-ins for claude, codex, aider, shell and the demo', () => {
    assert.deepEqual(Object.keys(builtinProfiles(env)).sort(), ['aider', 'claude', 'codex', 'demo', 'shell']);
    assert.equal(resolveProfile('claude', {}, env).command, 'claude');
    assert.deepEqual(resolveProfile('claude', {}, env).resumeArgs, ['--continue', '--', '{prompt}']);
  });

  it('shell is $SHELL, else /bin/bash', () => {
    assert.equal(resolveProfile('shell', undefined, env).command, '/bin/zsh-test');
    assert.equal(resolveProfile('shell', undefined, { PATH: '/bin' }).command, '/bin/bash');
  });

  it('merges an override over a built-in and accepts a new profile', () => {
    const overrides = {
      claude: { args: ['--model', 'x', '{prompt}'], env: { A: 'b' } },
      mine: { command: 'my-agent', idleSeconds: 5 },
    };
    const claude = resolveProfile('claude', overrides, env);
    assert.deepEqual(claude.args, ['--model', 'x', '{prompt}']);
    assert.deepEqual(claude.env, { A: 'b' });
    assert.deepEqual(claude.resumeArgs, ['--continue', '--', '{prompt}'], 'unset fields keep the built-in value');
    const mine = resolveProfile('mine', overrides, env);
    assert.equal(mine.command, 'my-agent');
    assert.deepEqual(mine.args, []);
    assert.equal(mine.idleSeconds, 5);
    assert.ok(profileNames(overrides, env).includes('mine'));
  });

  it('rejects unknown profiles, profiles without a command and invalid settings with usage errors', () => {
    const usage = (e: Error & { kind?: string }) => e.kind === 'usage';
    assert.throws(() => resolveProfile('nope', {}, env), (e: Error & { kind?: string }) => usage(e) && /Unknown profile 'nope'/.test(e.message));
    assert.throws(() => resolveProfile('x', { x: { args: [] } }, env), usage);
    assert.throws(() => resolveProfile('claude', { claude: { idleSeconds: 'soon' } }, env), usage);
    assert.throws(() => resolveProfile('claude', { claude: { bogus: 1 } }, env), usage);
    assert.throws(() => resolveProfile('claude', { claude: { waitingPattern: '(' } }, env), usage);
  });

  it('expands {prompt}, and drops it with its flag when there is no prompt', () => {
    assert.deepEqual(expandArgs(['--message', '{prompt}', '-v'], 'fix it'), ['--message', 'fix it', '-v']);
    assert.deepEqual(expandArgs(['--message', '{prompt}', '-v'], undefined), ['-v']);
    assert.deepEqual(expandArgs(['{prompt}'], ''), []);
    assert.deepEqual(expandArgs(['--p={prompt}'], 'a {prompt} b'), ['--p=a {prompt} b']);
  });

  it('finds programs on PATH and says when one is not there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paddock-path-'));
    try {
      const exe = join(dir, 'agent-x');
      writeFileSync(exe, '#!/bin/sh\n');
      chmodSync(exe, 0o755);
      writeFileSync(join(dir, 'not-exec'), '');
      const pathEnv = { PATH: `${dir}:/bin` };
      assert.equal(findProgram('agent-x', pathEnv, '/'), exe);
      assert.equal(findProgram('not-exec', pathEnv, '/'), undefined);
      assert.equal(findProgram(exe, {}, '/'), exe);
      assert.throws(() => assertRunnable('agent-y', pathEnv, '/'), /^PaddockError: Command 'agent-y' is not on PATH\.$|Command 'agent-y' is not on PATH\./);
      assert.throws(() => assertRunnable('./missing', pathEnv, dir), /does not exist or is not executable/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
