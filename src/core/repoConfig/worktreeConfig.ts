/**
 * Worktree setup as in force for one start: the repository's `.paddock.json`
 * merged under the person's `paddock.worktree.*` settings (a setting that is
 * set wins, key by key). Which commands come from the file is kept, because
 * only those need trust (`trustedCommands.ts`): the person's own settings are
 * theirs (VS Code ignores workspace values of them in an untrusted workspace).
 */
import * as z from '../common/zod';
import { usageError } from '../common/errors';
import type { RepoConfig } from './paddockJson';

export const DEFAULT_SETUP_TIMEOUT_SECONDS = 600;
export const DEFAULT_PORT_RANGE = '41000-41999';
/** A teardown that hangs must not hold a cleanup for ever. */
export const TEARDOWN_TIMEOUT_SECONDS = 300;

/** `paddock.worktree.*`: each key optional; unset (undefined, or empty for commands) means "the file's". */
export const WorktreeSettingsSchema = z.object({
  copy: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(1024))).check(z.maxLength(200))),
  link: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(1024))).check(z.maxLength(200))),
  setup: z.optional(z.string().check(z.maxLength(8192))),
  setupTimeoutSeconds: z.optional(z.number().check(z.int(), z.gte(1), z.lte(86_400))),
  teardown: z.optional(z.string().check(z.maxLength(8192))),
  ports: z.optional(z.number().check(z.int(), z.gte(0), z.lte(64))),
  portRange: z.optional(z.string().check(z.maxLength(32))),
});
export type WorktreeSettings = z.infer<typeof WorktreeSettingsSchema>;

export interface WorktreeConfig {
  copy: string[];
  link: string[];
  setup: string | null;
  setupTimeoutSeconds: number;
  teardown: string | null;
  ports: number;
  /** Where the ports come from; null when none are asked for (a bad range then matters to nobody). */
  portRange: PortRange | null;
  /** The commands in force that come from `.paddock.json` (and so need trust). */
  fromFile: ('setup' | 'teardown')[];
}

export interface PortRange {
  first: number;
  last: number;
}

/** The range the person's settings give ports from (the default when unset); throws a usage error for one that is no range. */
export function configuredPortRange(settings: WorktreeSettings): PortRange {
  return parsePortRange(settings.portRange ?? DEFAULT_PORT_RANGE);
}

/** "41000-41999" → {first, last}; a bad range is a usage error naming the setting. */
export function parsePortRange(text: string): PortRange {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2]) : NaN;
  if (!m || first < 1024 || last > 65535 || first > last) {
    throw usageError(`paddock.worktree.portRange "${text}" is not a range like 41000-41999 within 1024-65535.`);
  }
  return { first, last };
}

function command(text: string | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

/** The file's values under the settings' (settings win where set). */
export function mergeWorktreeConfig(file: RepoConfig | null, settings: WorktreeSettings = {}): WorktreeConfig {
  const fromFile: WorktreeConfig['fromFile'] = [];
  const setting = { setup: command(settings.setup), teardown: command(settings.teardown) };
  const setup = setting.setup ?? command(file?.setup);
  const teardown = setting.teardown ?? command(file?.teardown);
  if (setup !== null && setting.setup === null) fromFile.push('setup');
  if (teardown !== null && setting.teardown === null) fromFile.push('teardown');
  const ports = settings.ports ?? file?.ports ?? 0;
  return {
    copy: [...(settings.copy ?? file?.copy ?? [])],
    link: [...(settings.link ?? file?.link ?? [])],
    setup,
    setupTimeoutSeconds: settings.setupTimeoutSeconds ?? file?.setupTimeoutSeconds ?? DEFAULT_SETUP_TIMEOUT_SECONDS,
    teardown,
    ports,
    // Read only when ports are asked for: a bad range fails those starts, in one sentence, and no other.
    portRange: ports > 0 ? configuredPortRange(settings) : null,
    fromFile,
  };
}
