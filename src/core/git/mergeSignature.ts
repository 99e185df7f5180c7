/**
 * `git merge --verify-signatures` (or `merge.verifySignatures`), as git 2.39 checks it before it
 * merges (commit.c verify_merge_signature, gpg-interface.c check_signature): the tip of the branch
 * merged in must carry a good signature whose trust is at least `gpg.minTrustLevel`; and when that
 * setting is not set, at least marginal. git's own signature check answers (`%G?`, `%GT`), with
 * gpg, ssh or x509 as the person configured it. `%G?` prints `U` for a good signature whose trust
 * is undefined or never: git's own result there is good, its trust low.
 */
import { failure } from '../common/errors';
import { firstLine, runGit } from './runGit';

/** git's trust levels, lowest first (gpg-interface.h: TRUST_UNDEFINED … TRUST_ULTIMATE). */
const TRUST_LEVELS = ['undefined', 'never', 'marginal', 'fully', 'ultimate'];
const MARGINAL = TRUST_LEVELS.indexOf('marginal');

/**
 * Throws the one sentence when `commit` (`name`'s tip) is not signed as git merge requires; `setBy`:
 * the setting that asks it; `minTrustLevel`: `gpg.minTrustLevel` as set (lower case), or null.
 */
export async function assertMergeSignature(repo: string, commit: string, name: string, setBy: string, minTrustLevel: string | null): Promise<void> {
  const res = await runGit(['log', '-1', '--no-walk', '--format=%G?%x00%GT%x00%GS', '--end-of-options', commit], { cwd: repo, allowFailure: true });
  if (res.code !== 0) throw failure(`Could not check the signature of ${name}'s tip in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`);
  const [shown, trustWord, signer] = res.stdout.replace(/\n$/, '').split('\0');
  const good = shown === 'G' || shown === 'U';
  const trust = Math.max(0, TRUST_LEVELS.indexOf((trustWord ?? '').toLowerCase()));
  const least = minTrustLevel === null ? 0 : TRUST_LEVELS.indexOf(minTrustLevel);
  // git stops at a value it does not know (*invalid value for gpg.minTrustLevel*): nothing merges.
  if (least < 0) throw failure(`git's gpg.minTrustLevel=${minTrustLevel} is not a trust level git knows (${TRUST_LEVELS.join(', ')}), so git merge would merge nothing; nothing was changed.`, 'GIT_SETTING');
  const failed = !good || trust < least || (minTrustLevel === null && trust < MARGINAL);
  if (!failed) return;
  const problem = good ? `has an untrusted signature, allegedly by ${signer}` : shown === 'B' ? `has a bad signature, allegedly by ${signer}` : 'does not have a signature';
  throw failure(`Commit ${commit.slice(0, 12)} (the tip of ${name}) ${problem}, and git's ${setBy} merges only signed commits; nothing was changed.`, 'UNSIGNED');
}
