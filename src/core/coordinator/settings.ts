/**
 * The coordinator's settings. The extension maps `paddock.*` onto these; the
 * CLI uses the defaults. Read through a provider on every use so a changed
 * setting takes effect without a restart.
 */
import * as z from 'zod';
import { DEFAULT_ARCHIVE_LIMIT, DEFAULT_REGENERABLE } from '../git/classify';

export const CoordinatorSettingsSchema = z.object({
  maxConcurrent: z.number().int().min(1).max(64),
  /** Folder for worktrees; null: `<repo-parent>/<repo-name>.worktrees`. */
  worktreeRoot: z.string().min(1).nullable(),
  stopGraceSeconds: z.number().min(0).max(600),
  /** `paddock.profiles`: overrides and additions, validated when a profile is resolved. */
  profiles: z.unknown(),
  defaultProfile: z.string().min(1).max(64),
  /** Restart crashed agents automatically (off by default). */
  autoRestart: z.boolean(),
  /** Automatic restarts allowed before a person must retry. */
  recoveryLimit: z.number().int().min(0).max(100),
  /** Ignored paths cleanup may drop as regenerable (globs: a name matches any path component). */
  regenerable: z.array(z.string().min(1).max(256)).max(100),
  /** The archive of ignored files and nested repos may hold this many MB without the person's consent. */
  archiveLimitMB: z.number().min(0).max(1_000_000),
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
  regenerable: [...DEFAULT_REGENERABLE],
  archiveLimitMB: DEFAULT_ARCHIVE_LIMIT / (1024 * 1024),
};

export type SettingsProvider = () => Partial<CoordinatorSettings>;

/** Defaults filled in; a value of the wrong shape falls back to its default instead of breaking the coordinator. */
export function resolveSettings(provider: SettingsProvider | undefined): CoordinatorSettings {
  const given = provider?.() ?? {};
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof CoordinatorSettings)[]) {
    const value = given[key];
    if (value === undefined) continue;
    const field = CoordinatorSettingsSchema.shape[key];
    if (field.safeParse(value).success) out[key] = value;
  }
  return out as CoordinatorSettings;
}
