/**
 * git's settings for `git merge` that a landing must follow or refuse (bug 66), read in one `git
 * config` process with git's own lookup (repository, global, system and included files count as
 * they do for git): `merge.ff`, `merge.verifySignatures`, `merge.log`, `pull.twohead` (the
 * strategy a two-head `git merge` uses when none is given), `gpg.minTrustLevel`, and the options
 * of `branch.<target>.mergeOptions`, which git reads after them and puts before its command line.
 *
 * A landing is made by Paddock's own steps (`git merge-tree`, `commit-tree`, a fast-forward), so
 * each option is one of three kinds. Honoured: the fast-forward options, `--verify-signatures`
 * (the landed tip's signature checked as git merge checks it), `-S`/`--gpg-sign`/`--no-gpg-sign`
 * (given to commit-tree), `--allow-unrelated-histories` (given to merge-tree), `-s ort` (what
 * merge-tree does), `merge.log`/`--log` (the merged commits listed in a merge commit's message). Without effect on what lands (output, the editor, hooks Paddock does not run,
 * stashing or overwriting, which Paddock refuses on its own): accepted. Anything else — another
 * strategy, `-X`, `--squash`, `--no-commit`, `--signoff`, an option Paddock does not know —
 * would make git merge land something else than Paddock would: the landing is refused, naming
 * the setting, before anything changes.
 */
import type { ConfigEntry } from './configEntries';
import { FAST_FORWARD_DEFAULT, maybeBool, MERGE_OPTION_POLICY, mergeFfPolicy, type FastForwardSetting } from './fastForwardSetting';
import type { LandStrategy } from './landBranch';
import { cleanupModeOf, commentCharValue, MESSAGE_CLEANUP_DEFAULT, type MessageCleanup } from './messageCleanup';
import { splitCmdline } from './splitCmdline';
import { mergeConfigForTarget, readMergeConfig } from './mergeConfig';

/** A setting Paddock cannot land as `git merge` would. */
export interface UnhonouredSetting {
  /** As a person would write it: `branch.main.mergeOptions --squash`, `merge.log=true`. */
  setBy: string;
  /** What git merge would do with it that Paddock does not. */
  why: string;
  /** The way on, besides taking the setting out. */
  way: string;
  /** The landings it concerns (a rebase reads none of git merge's settings). */
  strategies: readonly LandStrategy[];
}

export interface MergeSettings {
  fastForward: FastForwardSetting;
  /** The setting that has git merge check the merged tip's signature (`merge.verifySignatures=true`), or null. */
  verifySignatures: string | null;
  /** `gpg.minTrustLevel` as set (the last value), lower case, or null: git merge judges a signature's trust by it when set. */
  minTrustLevel: string | null;
  /** commit-tree's option for signing the commit a landing makes (`-S`, `-S<key>`, `--no-gpg-sign`); null: `commit.gpgSign` decides, as for git. */
  gpgSign: string | null;
  allowUnrelatedHistories: boolean;
  /**
   * How many of the merged commits a merge commit's message lists (`merge.log`, its older name
   * `merge.summary`, `--log`), as git merge lists them under the message, its own or one given
   * with `-m`; null: none.
   */
  log: number | null;
  /** How a merge commit's message is cleaned, as git merge cleans it (`commit.cleanup`, then `--cleanup=`). */
  cleanup: MessageCleanup;
  /** How a squash's message is cleaned, as git commit cleans it after `git merge --squash` (`commit.cleanup` alone). */
  squashCleanup: MessageCleanup;
  unhonoured: UnhonouredSetting[];
}

export const MERGE_SETTINGS_DEFAULT: MergeSettings = { fastForward: FAST_FORWARD_DEFAULT, verifySignatures: null, minTrustLevel: null, gpgSign: null, allowUnrelatedHistories: false, log: null, cleanup: MESSAGE_CLEANUP_DEFAULT, squashCleanup: { ...MESSAGE_CLEANUP_DEFAULT, by: 'git commit' }, unhonoured: [] };

const MERGE_FORMS: readonly LandStrategy[] = ['merge', 'squash', 'ff-only'];
const MERGES: readonly LandStrategy[] = ['merge', 'squash'];
/** git merge's own default for `merge.log=true` and `--log` (DEFAULT_MERGE_LOG_LEN). */
const DEFAULT_LOG_LENGTH = 20;

/** Options that change nothing of what lands: output, the message editor, hooks (Paddock runs none on its commits), a dirty target's stash and ignored files (Paddock refuses both). */
const WITHOUT_EFFECT = new Set([
  '-n',
  '--stat',
  '--no-stat',
  '--compact-summary',
  '--summary',
  '--no-summary',
  '-q',
  '--quiet',
  '-v',
  '--verbose',
  '--progress',
  '--no-progress',
  '-e',
  '--edit',
  '--no-edit',
  '--rerere-autoupdate',
  '--no-rerere-autoupdate',
  '--autostash',
  '--no-autostash',
  '--overwrite-ignore',
  '--no-overwrite-ignore',
  '--verify',
  '--no-verify',
  '--commit',
  '--no-squash',
  '--no-signoff',
  '--no-log',
  '--no-verify-signatures',
  '--no-allow-unrelated-histories',
]);

/** Short options without effect written together (`-nq`), as git's option parser takes them. */
const BUNDLED_WITHOUT_EFFECT = /^-[nqve]{2,}$/;

/** git merge's settings for a merge into `target`, read as git reads them with the target checked out (`mergeConfigForTarget`). */
export async function mergeSettings(repo: string, target: string): Promise<MergeSettings> {
  return mergeSettingsFrom(await mergeConfigForTarget(repo, target, await readMergeConfig(repo)), target);
}

/** git merge's settings for a merge into `target`, from `readMergeConfig`'s entries. */
export function mergeSettingsFrom(entries: readonly ConfigEntry[], target: string): MergeSettings {
  let fastForward = FAST_FORWARD_DEFAULT;
  let verifySignatures: string | null = null;
  let minTrustLevel: string | null = null;
  let log: number | null = null;
  let twoHead: string | null = null;
  let mergeOptions: string | null = null;
  let cleanup: { name: string; setBy: string } | null = null;
  let commitCleanup: { name: string; setBy: string } | null = null;
  let commentChar = MESSAGE_CLEANUP_DEFAULT.commentChar;
  let autoCommentChar = false;
  let refusedCommentChar: string | null = null;
  // In the order git reads them, the last value winning.
  for (const { key, value } of entries) {
    if (key === 'merge.ff') {
      const policy = mergeFfPolicy(value);
      // git ignores a value it does not know ("from future versions"): the one before stays.
      if (policy !== null) fastForward = { policy, setBy: `merge.ff=${value ?? 'true'}` };
    } else if (key === 'merge.verifysignatures') {
      verifySignatures = maybeBool(value) ? `merge.verifySignatures=${value ?? 'true'}` : null;
    } else if (key === 'merge.log' || key === 'merge.summary') {
      // The same setting under two names (summary the older): the last one read wins, as in git.
      const yes = maybeBool(value);
      const n = value !== null && /^\d+$/.test(value) ? Number(value) : yes ? DEFAULT_LOG_LENGTH : 0;
      log = n > 0 ? n : null;
    } else if (key === 'commit.cleanup') {
      cleanup = commitCleanup = { name: value ?? '', setBy: `commit.cleanup=${value ?? ''}` };
    } else if (key === 'core.commentchar') {
      const read = commentCharValue(value);
      // `auto` leaves the character before it as it was (git merge uses that one).
      if (read === null) refusedCommentChar ??= value === null ? 'core.commentChar' : `core.commentChar=${value}`;
      else if (read.auto) autoCommentChar = true;
      else [commentChar, autoCommentChar] = [read.char, false];
    } else if (key === 'pull.twohead') {
      twoHead = value;
    } else if (key === 'gpg.mintrustlevel') {
      minTrustLevel = (value ?? '').toLowerCase();
    } else if (key === `branch.${target}.mergeoptions`) {
      mergeOptions = value ?? '';
    }
  }
  const settings: MergeSettings = { ...MERGE_SETTINGS_DEFAULT, fastForward, verifySignatures, minTrustLevel, unhonoured: [] };
  const named = `branch.${target}.mergeOptions`;
  let strategies: { names: string[]; setBy: string } | null = twoHead !== null && twoHead.trim() !== '' ? { names: twoHead.trim().split(/\s+/), setBy: `pull.twohead=${twoHead}` } : null;
  let optionStrategies: string[] = [];
  let squash = false;
  let noCommit = false;
  let signoff = false;
  const split = splitCmdline(mergeOptions ?? '');
  if (!split.ok) {
    settings.unhonoured.push({ setBy: named, why: `is not one git can read (${split.reason}), so git merge stops at it`, way: 'correct it', strategies: MERGE_FORMS });
  }
  const options = split.ok ? split.words : [];
  for (let i = 0; i < options.length; i++) {
    const option = options[i];
    // git's option parser passes over words that are no option, and takes none after `--`.
    if (option === '--') break;
    if (!option.startsWith('-') || option === '-') continue;
    const setBy = `${named} ${option}`;
    // An option's value, given in the same word (`-sort`, `--strategy=ort`) or the next.
    const valueOf = (short: string, long: string): string | null | undefined => {
      if (option === short || option === long) return options[++i] ?? null;
      if (option.startsWith(`${long}=`)) return option.slice(long.length + 1);
      if (option.startsWith(short) && option.length > short.length && !option.startsWith('--')) return option.slice(short.length);
      return undefined;
    };
    const policy = MERGE_OPTION_POLICY[option];
    if (policy) {
      settings.fastForward = { policy, setBy };
      continue;
    }
    if (option.startsWith('--cleanup=')) {
      cleanup = { name: option.slice('--cleanup='.length), setBy };
      continue;
    }
    if (WITHOUT_EFFECT.has(option) || BUNDLED_WITHOUT_EFFECT.test(option)) {
      if (option === '--no-squash') squash = false;
      else if (option === '--commit') noCommit = false;
      else if (option === '--no-signoff') signoff = false;
      else if (option === '--no-log') log = null;
      else if (option === '--no-verify-signatures') settings.verifySignatures = null;
      else if (option === '--no-allow-unrelated-histories') settings.allowUnrelatedHistories = false;
      continue;
    }
    if (option === '--verify-signatures') settings.verifySignatures = setBy;
    else if (option === '--allow-unrelated-histories') settings.allowUnrelatedHistories = true;
    else if (option === '--no-gpg-sign') settings.gpgSign = '--no-gpg-sign';
    else if (option === '-S' || option === '--gpg-sign') settings.gpgSign = '-S';
    else if (option.startsWith('--gpg-sign=')) settings.gpgSign = `-S${option.slice('--gpg-sign='.length)}`;
    else if (option.startsWith('-S')) settings.gpgSign = option;
    else if (option === '--squash') squash = true;
    else if (option === '--no-commit') noCommit = true;
    else if (option === '--signoff') signoff = true;
    else if (option === '--log' || option.startsWith('--log=')) {
      const n = option === '--log' ? DEFAULT_LOG_LENGTH : Number(option.slice('--log='.length));
      log = n > 0 ? n : null;
    } else if (option === '--into-name') i++;
    else if (option.startsWith('--into-name=')) continue;
    else {
      const strategy = valueOf('-s', '--strategy');
      const strategyOption = strategy === undefined ? valueOf('-X', '--strategy-option') : undefined;
      if (strategy !== undefined) {
        optionStrategies = [...optionStrategies, strategy ?? ''];
        strategies = { names: optionStrategies, setBy: `${named} ${optionStrategies.map((s) => `-s ${s}`).join(' ')}` };
      } else if (strategyOption !== undefined) {
        settings.unhonoured.push({
          setBy: `${named} -X ${strategyOption ?? ''}`.trimEnd(),
          why: "asks git merge for a strategy option, which Paddock's merge (git merge-tree) does not take",
          way: 'merge with git yourself',
          strategies: MERGES,
        });
      } else {
        settings.unhonoured.push({ setBy, why: 'is an option whose effect on git merge Paddock does not know', way: 'merge with git yourself', strategies: MERGE_FORMS });
      }
    }
  }
  if (strategies !== null && !(strategies.names.length === 1 && strategies.names[0] === 'ort')) {
    settings.unhonoured.push({
      setBy: strategies.setBy,
      why: `asks git merge for the ${strategies.names.join(', ')} strategy, and Paddock merges with git's ort strategy only${
        // Asked often, as git's old default: before git 2.50 it is a strategy of its own, and git merge-tree, Paddock's merge, has none but ort.
        strategies.names.includes('recursive') ? " (git merge-tree, Paddock's merge, has no other, and git merge's recursive is not ort before git 2.50)" : ''
      }`,
      way: 'merge with git yourself',
      strategies: MERGES,
    });
  }
  if (squash) settings.unhonoured.push({ setBy: `${named} --squash`, why: 'has git merge only stage the changes, with no commit', way: 'land them as one commit with --squash', strategies: ['merge'] });
  if (noCommit) settings.unhonoured.push({ setBy: `${named} --no-commit`, why: 'has git merge stop before it commits', way: 'merge with git yourself', strategies: ['merge'] });
  if (signoff) settings.unhonoured.push({ setBy: `${named} --signoff`, why: 'has git merge add a Signed-off-by line, which Paddock does not write', way: 'merge with git yourself', strategies: MERGES });
  settings.log = log;
  // git stops at the first value it cannot read, whatever comes after it: every git command, git merge and git commit among them.
  if (refusedCommentChar !== null) {
    settings.unhonoured.push({ setBy: refusedCommentChar, why: 'is not a single character (one byte) or auto, so every git command stops at it', way: 'correct it', strategies: MERGE_FORMS });
  }
  // git merge --squash stops at an unknown mode too, and leaves the commit to git commit, which reads no mergeOptions but stops at an unknown commit.cleanup.
  settings.cleanup = { mode: cleanupFollowed(cleanup, MERGES, settings.unhonoured), by: 'git merge', commentChar, autoCommentChar };
  settings.squashCleanup = { mode: cleanupFollowed(commitCleanup, ['squash'], settings.unhonoured), by: 'git commit', commentChar, autoCommentChar };
  return settings;
}

/** The cleanup mode `named` sets (git's default when none), an unknown one added to `unhonoured` as git stops at it. */
function cleanupFollowed(named: { name: string; setBy: string } | null, strategies: readonly LandStrategy[], unhonoured: UnhonouredSetting[]): MessageCleanup['mode'] {
  if (named === null) return MESSAGE_CLEANUP_DEFAULT.mode;
  const mode = cleanupModeOf(named.name);
  if (mode === null && !unhonoured.some((u) => u.setBy === named.setBy)) {
    unhonoured.push({ setBy: named.setBy, why: 'is no cleanup mode git knows, so git merge stops at it', way: 'correct it', strategies });
  }
  return mode ?? MESSAGE_CLEANUP_DEFAULT.mode;
}

/**
 * The one sentence refusing a landing that would not be what `git merge` makes with the person's
 * settings, or null.
 */
export function unhonouredSettingProblem(settings: MergeSettings, strategy: LandStrategy, target: string): string | null {
  const first = settings.unhonoured.find((u) => u.strategies.includes(strategy));
  if (!first) return null;
  return `git's ${first.setBy} ${first.why}; nothing was changed (${first.way}, or take it out of git's config for ${target}).`;
}

/** Whether a plain merge may fast-forward, as `git merge` decides it for the person (`mergeSettings`'s first answer). */
export async function fastForwardSetting(repo: string, target: string): Promise<FastForwardSetting> {
  return (await mergeSettings(repo, target)).fastForward;
}
