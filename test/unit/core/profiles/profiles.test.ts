import * as assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRunnable, builtinProfiles, expandArgs, findProgram, profileNames, resolveProfile } from '../../../../src/core/profiles';
import { planStart, resumeCommand } from '../../../../src/core/coordinator/startPlan';
import { DEFAULT_SETTINGS } from '../../../../src/core/coordinator/settings';
import { PaddockError } from '../../../../src/core/common/errors';

describe('profiles', () => {
  const env = { PATH: '/usr/bin:/bin', SHELL: '/bin/zsh-test' };

  it('has built-ins for claude, codex, aider, shell and the demo', () => {
    assert.deepEqual(Object.keys(builtinProfiles(env)).sort(), ['aider', 'claude', 'codex', 'demo', 'shell']);
    assert.equal(resolveProfile('claude', {}, env).command, 'claude');
    assert.deepEqual(resolveProfile('claude', {}, env).resumeArgs, ['--continue', '--', '{prompt}']);
  });

  it("auto-approve: each built-in agent's own flag, a person's profile may name one, off unless asked", () => {
    const flagOf = (name: string, profiles: unknown = {}) => {
      const plan = planStart({ repo: '/r', profile: name, prompt: 'do it', autoApprove: true }, { ...DEFAULT_SETTINGS, profiles }, env);
      assert.equal(plan.autoApprove, true);
      return plan;
    };
    const claude = flagOf('claude');
    assert.equal(claude.command[3], '--dangerously-skip-permissions');
    assert.deepEqual(claude.command.slice(4), ['--', 'do it']);
    // A retry (resume arguments) keeps it.
    assert.deepEqual(resumeCommand(claude.command, claude.settings.resumeArgs).slice(3), ['--dangerously-skip-permissions', '--continue']);
    assert.ok(flagOf('codex').command.includes('--dangerously-bypass-approvals-and-sandbox'));
    assert.deepEqual(flagOf('aider').command, ['aider', '--yes-always']);
    const mine = flagOf('mine', { mine: { command: 'my-agent', args: ['{prompt}'], autoApprove: ['--trust-me', 'yes'] } });
    assert.deepEqual(mine.command, ['my-agent', '--trust-me', 'yes', 'do it']);

    const off = planStart({ repo: '/r', profile: 'claude', prompt: 'do it' }, DEFAULT_SETTINGS, env);
    assert.equal(off.autoApprove, false);
    assert.ok(!off.command.includes('--dangerously-skip-permissions'));
    // A built-in's flag can be taken away; a profile without one refuses auto-approve as bad usage.
    for (const [name, profiles] of [['shell', {}], ['claude', { claude: { autoApprove: null } }]] as const) {
      assert.throws(
        () => planStart({ repo: '/r', profile: name, autoApprove: true }, { ...DEFAULT_SETTINGS, profiles }, env),
        (err: unknown) => err instanceof PaddockError && err.kind === 'usage' && /has no auto-approve flag/.test(err.message),
      );
    }
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
