/** The sealed environment of a request: encrypted at rest, private files, one key per user, no silent fallback. */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentKey, openRequestEnv, REQUEST_ENV_FILE, removeRequestEnv, sealRequestEnv } from '../../../../src/core/coordinator/requestEnv';

describe('coordinator/requestEnv', () => {
  let root: string;
  let jobDir: string;
  let runtimeDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'paddock-env-'));
    jobDir = join(root, 'job');
    mkdirSync(jobDir, { mode: 0o700 });
    runtimeDir = join(mkdtempSync('/tmp/pde-'), 'r');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(join(runtimeDir, '..'), { recursive: true, force: true });
  });

  it('round-trips the environment; the file holds no value in clear and is private', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-secret-value-123456', PLAIN: 'visible-looking-value', UNSET: undefined };
    await sealRequestEnv(jobDir, 'job1', env, runtimeDir);
    const file = join(jobDir, REQUEST_ENV_FILE);
    const bytes = readFileSync(file, 'latin1');
    assert.ok(!bytes.includes('sk-ant-secret-value') && !bytes.includes('visible-looking-value') && !bytes.includes('PLAIN'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(runtimeDir, 'env.key')).mode & 0o777, 0o600);
    assert.equal(statSync(runtimeDir).mode & 0o777, 0o700);
    assert.deepEqual(openRequestEnv(jobDir, 'job1', runtimeDir), { ANTHROPIC_API_KEY: 'sk-ant-secret-value-123456', PLAIN: 'visible-looking-value' });
  });

  it('sweeps what a crashed seal left (its callers hold the job\'s lock), and no other file\'s temp file', async () => {
    const sealLeftover = join(jobDir, `.tmp-${REQUEST_ENV_FILE}.12345.abcd`);
    const reviewInFlight = join(jobDir, '.tmp-review.json.12345.abcd');
    writeFileSync(sealLeftover, 'half');
    writeFileSync(reviewInFlight, 'half');
    await sealRequestEnv(jobDir, 'job1', { A: 'b' }, runtimeDir);
    assert.equal(existsSync(sealLeftover), false);
    assert.equal(existsSync(reviewInFlight), true);
    assert.deepEqual(openRequestEnv(jobDir, 'job1', runtimeDir), { A: 'b' });
  });

  it('keeps one key: concurrent first uses agree on it', () => {
    const keys = Array.from({ length: 5 }, () => environmentKey(runtimeDir).toString('hex'));
    assert.equal(new Set(keys).size, 1);
  });

  it('a sealed file moved to another job does not open', async () => {
    await sealRequestEnv(jobDir, 'job1', { A: 'b' }, runtimeDir);
    assert.throws(() => openRequestEnv(jobDir, 'job2', runtimeDir), /cannot be decrypted/);
  });

  it('a missing file, a lost key, a new key and a damaged file each fail with one sentence', async () => {
    assert.throws(() => openRequestEnv(jobDir, 'job1', runtimeDir), /was not saved with it; start or retry it again/);
    await sealRequestEnv(jobDir, 'job1', { A: 'b' }, runtimeDir);
    rmSync(join(runtimeDir, 'env.key'));
    assert.throws(() => openRequestEnv(jobDir, 'job1', runtimeDir), /key to its saved environment is gone/);
    environmentKey(runtimeDir); // a new key, as after a reboot
    assert.throws(() => openRequestEnv(jobDir, 'job1', runtimeDir), /cannot be decrypted/);
    writeFileSync(join(jobDir, REQUEST_ENV_FILE), '{"v":1,"iv":"x","tag":"y","data":"z"');
    assert.throws(() => openRequestEnv(jobDir, 'job1', runtimeDir), /cannot be decrypted/);
    removeRequestEnv(jobDir);
    removeRequestEnv(jobDir); // idempotent
    assert.throws(() => openRequestEnv(jobDir, 'job1', runtimeDir), /was not saved/);
  });

  it('refuses a key file others can read', () => {
    environmentKey(runtimeDir);
    chmodSync(join(runtimeDir, 'env.key'), 0o644);
    assert.throws(() => environmentKey(runtimeDir), /not a private 32-byte file/);
  });
});
