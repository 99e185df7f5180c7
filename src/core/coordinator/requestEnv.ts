/**
 * The environment an agent runs with is the environment of the request that
 * created its execution (start, retry), not of whichever process happens to
 * launch it later (a CLI start that pumps the queue, `paddock coordinate`, a
 * window). The requesting process seals it into the job folder — AES-256-GCM
 * with a per-user key kept in the private runtime dir, so no secret value is on
 * disk in clear — and the launcher opens it. A missing or unreadable seal fails
 * the launch; it never falls back to the launcher's own environment.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import * as z from '../common/zod';
import { fsFailureWords } from '../common/fsErrors';
import { failure } from '../common/errors';
import { ensureRuntimeDir } from '../protocol/runtimeDir';
import { commitTemp, FILE_MODE, sweepTempFiles, tempPathFor, writeTemp } from '../store/durable';

import { REQUEST_ENV_FILE } from '../store/paths';
export { REQUEST_ENV_FILE };
export const ENV_KEY_FILE = 'env.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
/** Bounds what is decrypted and parsed (a real environment is a few KiB). */
const MAX_SEALED_BYTES = 4 * 1024 * 1024;

const SealedSchema = z.object({
  v: z.literal(1),
  iv: z.string().check(z.maxLength(64)),
  tag: z.string().check(z.maxLength(64)),
  data: z.string().check(z.maxLength(MAX_SEALED_BYTES)),
});
const EnvSchema = z.record(z.string().check(z.maxLength(4096)), z.string().check(z.maxLength(1024 * 1024)));

/** The per-user key: created once (atomically: the first of racing processes wins), mode 0600. */
export function environmentKey(runtimeDir: string): Buffer {
  ensureRuntimeDir(runtimeDir);
  const keyPath = join(runtimeDir, ENV_KEY_FILE);
  const existing = readKey(keyPath);
  if (existing) return existing;
  const temp = tempPathFor(keyPath);
  fs.writeFileSync(temp, randomBytes(KEY_BYTES), { mode: FILE_MODE, flag: 'wx' });
  try {
    fs.linkSync(temp, keyPath); // fails with EEXIST when another process made it first: use theirs
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const key = readKey(keyPath);
  if (!key) throw failure(`The environment key ${keyPath} could not be created.`);
  return key;
}

function readKey(keyPath: string): Buffer | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(keyPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const uid = process.getuid?.();
  if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0 || st.size !== KEY_BYTES) {
    throw failure(`The environment key ${keyPath} is not a private ${KEY_BYTES}-byte file of this user; remove it (queued agents will then need starting again).`);
  }
  return fs.readFileSync(keyPath);
}

/** Writes `env` sealed into the job folder (mode 0600, replaced atomically). */
export async function sealRequestEnv(jobDir: string, jobId: string, env: NodeJS.ProcessEnv, runtimeDir: string): Promise<void> {
  const key = environmentKey(runtimeDir);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') clean[name] = value;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`paddock-env:${jobId}`));
  const data = Buffer.concat([cipher.update(JSON.stringify(clean), 'utf8'), cipher.final()]);
  const sealed = { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  const target = join(jobDir, REQUEST_ENV_FILE);
  // Both callers (start, retry) hold the job's operation lock: what a crashed seal left can go.
  sweepTempFiles(target);
  commitTemp(await writeTemp(target, JSON.stringify(sealed)), target);
}

/** The environment sealed for the job; throws one sentence saying why it cannot be had. */
export function openRequestEnv(jobDir: string, jobId: string, runtimeDir: string): Record<string, string> {
  const file = join(jobDir, REQUEST_ENV_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw failure('the environment of the request that started it was not saved with it; start or retry it again');
    }
    throw failure(`its saved environment (${file}) cannot be read: ${fsFailureWords(err)}; start or retry it again`);
  }
  const keyPath = join(runtimeDir, ENV_KEY_FILE);
  const key = readKey(keyPath);
  if (!key) {
    throw failure(`the key to its saved environment is gone from ${runtimeDir} (the machine restarted, or another runtime dir is in use); start or retry it again`);
  }
  try {
    const sealed = SealedSchema.parse(JSON.parse(text));
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(`paddock-env:${jobId}`));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
    return EnvSchema.parse(JSON.parse(plain.toString('utf8')));
  } catch {
    throw failure(`its saved environment cannot be decrypted with the key in ${runtimeDir} (a new key since it was queued, or a damaged file); start or retry it again`);
  }
}

/** Removes the sealed environment (cleanup, a start that failed); a missing file is fine. */
export function removeRequestEnv(jobDir: string): void {
  fs.rmSync(join(jobDir, REQUEST_ENV_FILE), { force: true });
}
