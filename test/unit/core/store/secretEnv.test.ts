import * as assert from 'node:assert/strict';
import { isSecretEnvName, secretEnvNames } from '../../../../src/core/store/secretEnv';

describe('store/secretEnv', () => {
  it('takes credential-shaped names, case-insensitive', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'GH_TOKEN', 'aws_secret', 'DB_PASSWORD', 'password', 'MY_PASSWORD_FILE', 'foo_token']) {
      assert.ok(isSecretEnvName(name), name);
    }
    for (const name of ['PATH', 'HOME', 'KEYBOARD', 'TOKENIZER_PATH', 'SECRETARY', 'KEY']) assert.ok(!isSecretEnvName(name), name);
  });

  it('adds the declared names and only names that are set', () => {
    const env = { PATH: '/bin', FOO_TOKEN: 'abcd1234', OPENAI_API_KEY: 'sk-x', UNSET_KEY: undefined, CUSTOM: 'v' };
    assert.deepEqual(secretEnvNames(env, ['CUSTOM']), ['CUSTOM', 'FOO_TOKEN', 'OPENAI_API_KEY']);
  });
});
