import * as assert from 'node:assert/strict';
import { resolveSettings } from '../../../../src/core/coordinator/settings';
import { planStart } from '../../../../src/core/coordinator/startPlan';
import { PaddockError } from '../../../../src/core/common/errors';
import { expandArgs, MAX_PROMPT_CHARS, promptReadAsOption, resolveProfile } from '../../../../src/core/profiles';

/** The error `fn` throws, which must be a usage error (exit 2) of one sentence. */
function usageErrorOf(fn: () => unknown): PaddockError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof PaddockError, String(err));
    assert.equal(err.kind, 'usage');
    assert.doesNotMatch(err.message, /\n|expected string|too_big|Too big/);
    return err;
  }
  assert.fail('no error');
}

describe('prompts are data', () => {
  const env = { PATH: '/usr/bin:/bin', SHELL: '/bin/sh' };

  it('the built-in claude and codex profiles pass the prompt after --, so a prompt starting with - stays the prompt', () => {
    for (const name of ['claude', 'codex']) {
      const plan = planStart({ repo: '/r', profile: name, prompt: '--dangerously-skip-permissions' }, resolveSettings(undefined), env);
      // After the agent's own signal arguments (hooks), which never hold the prompt.
      assert.deepEqual(plan.command.slice(-2), ['--', '--dangerously-skip-permissions'], name);
      assert.equal(plan.command.indexOf('--dangerously-skip-permissions'), plan.command.length - 1, name);
      // Without a prompt the -- goes too.
      assert.deepEqual(expandArgs(resolveProfile(name, {}, env).args, undefined), [], name);
    }
  });

  it('refuses a prompt starting with - where a profile would pass it as an option, in one sentence', () => {
    const settings = resolveSettings(() => ({ profiles: { mine: { command: 'agent', args: ['--model', 'x', '{prompt}'] } } }));
    const err = usageErrorOf(() => planStart({ repo: '/r', profile: 'mine', prompt: '--yolo' }, settings, env));
    assert.match(err.message, /starts with '-'.*profile 'mine'.*option/);
    // A prompt not starting with -, {prompt} inside an argument, or after a --, is fine.
    assert.deepEqual(planStart({ repo: '/r', profile: 'mine', prompt: 'fix -x' }, settings, env).command, ['agent', '--model', 'x', 'fix -x']);
    assert.equal(promptReadAsOption(['--message={prompt}'], '-x'), false);
    assert.equal(promptReadAsOption(['-m', '--', '{prompt}'], '-x'), false);
    assert.equal(promptReadAsOption(['{prompt}', '--'], '-x'), true);
  });

  it('refuses a prompt over the limit with one plain sentence, not a schema message', () => {
    const prompt = 'a'.repeat(MAX_PROMPT_CHARS + 1);
    const err = usageErrorOf(() => planStart({ repo: '/r', profile: 'claude', prompt }, resolveSettings(undefined), env));
    assert.equal(err.message, `The prompt is ${MAX_PROMPT_CHARS + 1} characters; the limit is 8192.`);
    planStart({ repo: '/r', profile: 'claude', prompt: 'a'.repeat(MAX_PROMPT_CHARS) }, resolveSettings(undefined), env);
  });

  it('refuses an explicit command too long for the record with one plain sentence', () => {
    const settings = resolveSettings(undefined);
    assert.match(usageErrorOf(() => planStart({ repo: '/r', command: ['echo', 'b'.repeat(9000)] }, settings, env)).message, /^The command's argument 1 is 9000 characters; the limit is 8192\.$/);
    assert.match(usageErrorOf(() => planStart({ repo: '/r', command: Array(300).fill('x') }, settings, env)).message, /300 arguments; the limit is 256/);
    assert.match(usageErrorOf(() => planStart({ repo: '/r', command: ['true'], base: 'r'.repeat(301) }, settings, env)).message, /^The base is 301 characters/);
  });
});
