/**
 * Whether a plain merge may fast-forward, as `git merge` decides it for the person: `merge.ff`
 * (true: when it can; false: always a merge commit; only: a fast-forward or nothing), then the
 * fast-forward options of `branch.<target>.mergeOptions` over it (git reads them for the branch
 * merged into, after the config). Read with git's own config lookup in the repository, so
 * repository, global, system and included files count as they do for git. Only the fast-forward
 * options of mergeOptions are honoured: a landing is made by Paddock's own steps, not `git merge`.
 */
import { failure } from '../common/errors';
import { configEntries } from './configEntries';
import { firstLine, runGit } from './runGit';

export type FastForwardPolicy = 'allow' | 'never' | 'only';

export interface FastForwardSetting {
  policy: FastForwardPolicy;
  /** The setting that decided it, as a person would write it (`merge.ff=false`); null: git's default. */
  setBy: string | null;
}

export const FAST_FORWARD_DEFAULT: FastForwardSetting = { policy: 'allow', setBy: null };

const MERGE_OPTION_POLICY: Readonly<Record<string, FastForwardPolicy>> = { '--ff': 'allow', '--no-ff': 'never', '--ff-only': 'only' };

export async function fastForwardSetting(repo: string, target: string): Promise<FastForwardSetting> {
  const res = await runGit(['config', '-z', '--get-regexp', '^(merge\\.ff|branch\\..*\\.mergeoptions)$'], { cwd: repo, allowFailure: true });
  // 1: none is set.
  if (res.code === 1) return FAST_FORWARD_DEFAULT;
  if (res.code !== 0) throw failure(`Could not read git's merge settings in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`);
  let setting = FAST_FORWARD_DEFAULT;
  let mergeOptions: string | null = null;
  // In the order git reads them.
  for (const { key, value } of configEntries(res.stdout)) {
    if (key === 'merge.ff') {
      const policy = mergeFfPolicy(value);
      // git ignores a value it does not know ("from future versions"): the one before stays.
      if (policy !== null) setting = { policy, setBy: `merge.ff=${value ?? 'true'}` };
    } else if (key === `branch.${target}.mergeoptions`) {
      mergeOptions = value ?? '';
    }
  }
  if (mergeOptions !== null) {
    for (const option of mergeOptions.split(/\s+/)) {
      const policy = MERGE_OPTION_POLICY[option];
      if (policy) setting = { policy, setBy: `branch.${target}.mergeOptions ${option}` };
    }
  }
  return setting;
}

/** `merge.ff`'s value as git reads it (git's maybe-bool, or `only`); null when git would ignore it. */
function mergeFfPolicy(value: string | null): FastForwardPolicy | null {
  if (value === 'only') return 'only';
  const yes = maybeBool(value);
  return yes === null ? null : yes ? 'allow' : 'never';
}

/** git's boolean words: no value is true, an empty one false; a whole number is true unless 0. */
function maybeBool(value: string | null): boolean | null {
  if (value === null) return true;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^(false|no|off|)$/i.test(value)) return false;
  const n = /^[-+]?\d+[kmg]?$/i.test(value) ? parseInt(value, 10) : NaN;
  return Number.isNaN(n) ? null : n !== 0;
}
