/**
 * Whether a plain merge may fast-forward, as `git merge` decides it for the person: `merge.ff`
 * (true: when it can; false: always a merge commit; only: a fast-forward or nothing), then the
 * fast-forward options of `branch.<target>.mergeOptions` over it (git reads them for the branch
 * merged into, after the config). Read with the rest of git's merge settings (`mergeSettings`).
 */
export type FastForwardPolicy = 'allow' | 'never' | 'only';

export interface FastForwardSetting {
  policy: FastForwardPolicy;
  /** The setting that decided it, as a person would write it (`merge.ff=false`); null: git's default. */
  setBy: string | null;
}

export const FAST_FORWARD_DEFAULT: FastForwardSetting = { policy: 'allow', setBy: null };

/** What each fast-forward option of `git merge` asks. */
export const MERGE_OPTION_POLICY: Readonly<Record<string, FastForwardPolicy>> = { '--ff': 'allow', '--no-ff': 'never', '--ff-only': 'only' };

/** `merge.ff`'s value as git reads it (git's maybe-bool, or `only`); null when git would ignore it. */
export function mergeFfPolicy(value: string | null): FastForwardPolicy | null {
  if (value === 'only') return 'only';
  const yes = maybeBool(value);
  return yes === null ? null : yes ? 'allow' : 'never';
}

/** git's boolean words: no value is true, an empty one false; a whole number is true unless 0. */
export function maybeBool(value: string | null): boolean | null {
  if (value === null) return true;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^(false|no|off|)$/i.test(value)) return false;
  const n = /^[-+]?\d+[kmg]?$/i.test(value) ? parseInt(value, 10) : NaN;
  return Number.isNaN(n) ? null : n !== 0;
}
