/**
 * The coordinator's settings. The extension maps `paddock.*` onto these; the
 * CLI uses the defaults. Read through a provider on every use so a changed
 * setting takes effect without a restart. The store-wide ones
 * (`STORE_POLICY_KEYS`: capacity, stop grace, what cleanup may drop) are read
 * from the store's policy file instead, so every process on a store agrees.
 */
import * as z from '../common/zod';
import { DEFAULT_ARCHIVE_LIMIT, DEFAULT_REGENERABLE } from '../git/classify';
import { WorktreeSettings, WorktreeSettingsSchema } from '../repoConfig/worktreeConfig';
import type { StorePolicy } from '../store/policy';
import { STORE_POLICY_KEYS, StorePolicySchema } from '../store/recordSchemas';

export const CoordinatorSettingsSchema = z.object({
  maxConcurrent: StorePolicySchema.shape.maxConcurrent.def.innerType,
  /** Folder for worktrees; null: `<repo-parent>/<repo-name>.worktrees`. */
  worktreeRoot: z.nullable(z.string().check(z.minLength(1))),
  stopGraceSeconds: StorePolicySchema.shape.stopGraceSeconds.def.innerType,
  /** `paddock.profiles`: overrides and additions, validated when a profile is resolved. */
  profiles: z.unknown(),
  defaultProfile: z.string().check(z.minLength(1), z.maxLength(64)),
  /** Restart crashed agents automatically (off by default). */
  autoRestart: z.boolean(),
  /** Automatic restarts allowed before a person must retry. */
  recoveryLimit: z.number().check(z.int(), z.gte(0), z.lte(100)),
  /** When an agent's main process ends, end what it left running (Codex's app-server, say). */
  endLeftoversOnExit: z.boolean(),
  /** `paddock.checkCommand`: the person's check command, recorded on each agent at start (null: none; `.paddock.json` may give one). */
  checkCommand: z.nullable(z.string().check(z.minLength(1), z.maxLength(8192))),
  regenerable: StorePolicySchema.shape.regenerable.def.innerType,
  archiveLimitMB: StorePolicySchema.shape.archiveLimitMB.def.innerType,
  /** `paddock.worktree.*`: merged over the repository's `.paddock.json` (these win). */
  worktree: WorktreeSettingsSchema,
  /**
   * The folders of the window's workspace when it is trusted (none when it is not, and from the CLI): a
   * `.paddock.json` of a repository they hold may run its commands without `paddock allow`.
   */
  trustedFolders: z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.maxLength(256)),
});
export type CoordinatorSettings = z.infer<typeof CoordinatorSettingsSchema>;

export const DEFAULT_SETTINGS: CoordinatorSettings = {
  maxConcurrent: 4,
  worktreeRoot: null,
  stopGraceSeconds: 10,
  profiles: {},
  defaultProfile: 'claude',
  autoRestart: false,
  recoveryLimit: 3,
  endLeftoversOnExit: true,
  checkCommand: null,
  regenerable: [...DEFAULT_REGENERABLE],
  archiveLimitMB: DEFAULT_ARCHIVE_LIMIT / (1024 * 1024),
  worktree: {},
  trustedFolders: [],
};

export type SettingsProvider = () => Partial<CoordinatorSettings>;

/**
 * Defaults filled in; a value of the wrong shape (a number for a string, a
 * count out of bounds) falls back to its default instead of breaking the
 * coordinator. What only its use can judge is checked there, where it is
 * needed: a `paddock.worktree.portRange` that is no range fails, in one
 * sentence, the starts that ask for ports, and nothing else. With a `policy`
 * (the store's), the store-wide keys come from it (or the defaults), never
 * from the provider.
 */
export function resolveSettings(provider: SettingsProvider | undefined, policy?: StorePolicy): CoordinatorSettings {
  const given: Partial<CoordinatorSettings> = { ...(provider?.() ?? {}) };
  if (policy) for (const key of STORE_POLICY_KEYS) (given as Record<string, unknown>)[key] = policy[key];
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof CoordinatorSettings)[]) {
    const value = given[key];
    if (value === undefined) continue;
    const field = CoordinatorSettingsSchema.shape[key];
    if (key === 'worktree') out[key] = validWorktreeKeys(value);
    else if (field.safeParse(value).success) out[key] = value;
  }
  return out as CoordinatorSettings;
}

/** `paddock.worktree.*` key by key: one bad value falls back to its default without dropping the others. */
function validWorktreeKeys(value: unknown): WorktreeSettings {
  const out: Record<string, unknown> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, field] of Object.entries(WorktreeSettingsSchema.shape)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined && field.safeParse(v).success) out[key] = v;
  }
  return out as WorktreeSettings;
}

/** The store-wide part of what a provider gives (only valid values), to be written to the store's policy. */
export function policyPartOf(provider: SettingsProvider | undefined): StorePolicy {
  const given = provider?.() ?? {};
  const out: Record<string, unknown> = {};
  for (const key of STORE_POLICY_KEYS) {
    const value = given[key];
    if (value !== undefined && StorePolicySchema.shape[key].safeParse(value).success) out[key] = value;
  }
  return out as StorePolicy;
}
