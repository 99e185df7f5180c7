/**
 * The store-wide policy: the values every process on one store must agree on
 * (how many agents run at once, the stop grace, what cleanup may drop and
 * archive), in one file, `$PADDOCK_HOME/policy.json`, so the capacity in force
 * does not depend on which process leads. Windows write it when the person
 * changes a setting; every process (CLI, windows, `paddock coordinate`) reads
 * it. A field missing from the file, or a file that is unreadable or invalid
 * (the reason is logged once), means the built-in default.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { usageError } from '../common/errors';
import { ensureDir, writeFileDurableSync } from './durable';
import { describeIssues } from './records';
import type { StorePolicy } from './recordSchemas';
import { readRegularTextSync } from './regularFile';
import { storeSchemas } from './storeSchemas';

export type { StorePolicy };

export const POLICY_FILE = 'policy.json';

export class PolicyFile {
  readonly path: string;
  private cached: { key: string; policy: StorePolicy } | undefined;
  private lastComplaint = '';

  constructor(home: string, private readonly log: (message: string) => void) {
    this.path = path.join(home, POLICY_FILE);
  }

  /** The policy in force (only what the file sets); re-read only when the file changed. */
  read(): StorePolicy {
    let key: string;
    try {
      const st = fs.statSync(this.path);
      key = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return {};
    }
    if (this.cached?.key === key) return this.cached.policy;
    const policy = this.parse(key);
    this.cached = { key, policy };
    return policy;
  }

  /**
   * Sets the given fields (others stay as they are) durably, and returns the
   * policy in force. Refuses invalid values in one sentence. Synchronous, so
   * this process's next step already runs under the new policy.
   */
  write(change: StorePolicy): StorePolicy {
    const given = storeSchemas().StorePolicySchema.safeParse(change);
    if (!given.success) throw usageError(`The store policy is invalid: ${describeIssues(given.error.issues)}.`, 'INVALID_POLICY');
    const next: StorePolicy = { ...this.read(), ...dropUndefined(given.data) };
    ensureDir(path.dirname(this.path));
    writeFileDurableSync(this.path, `${JSON.stringify(next, null, 2)}\n`);
    this.cached = undefined;
    return next;
  }

  private parse(key: string): StorePolicy {
    let reason: string;
    try {
      const text = readRegularTextSync(this.path, 1024 * 1024);
      if (text === null) throw new Error('it is over 1 MB');
      const parsed = storeSchemas().StorePolicySchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      reason = describeIssues(parsed.error.issues);
    } catch (err) {
      reason = err instanceof SyntaxError ? 'it is not valid JSON' : (err as Error).message;
    }
    if (this.lastComplaint !== key) {
      this.lastComplaint = key;
      this.log(`the store policy ${this.path} is ignored (${reason}); the defaults apply`);
    }
    return {};
  }
}

function dropUndefined(policy: StorePolicy): StorePolicy {
  return Object.fromEntries(Object.entries(policy).filter(([, v]) => v !== undefined)) as StorePolicy;
}
