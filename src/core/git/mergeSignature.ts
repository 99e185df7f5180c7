/**
 * `git merge --verify-signatures` (or `merge.verifySignatures`), as git 2.39 checks it before it
 * merges (gpg-interface.c, verify_merge_signature): the tip of the branch merged in must carry a
 * good signature — of a key trusted at least marginally, unless `gpg.minTrustLevel` is set (then
 * the signature is good only at that trust, as git's own check says). git's own signature check
 * answers (`%G?`, `%GT`), with gpg, ssh or x509 as the person configured it.
 */
import { failure } from '../common/errors';
import { firstLine, runGit } from './runGit';

const TRUSTED = new Set(['marginal', 'fully', 'ultimate']);

/** Throws the one sentence when `commit` (`name`'s tip) is not signed as git merge requires; `setBy`: the setting that asks it. */
export async function assertMergeSignature(repo: string, commit: string, name: string, setBy: string, minTrustLevelSet: boolean): Promise<void> {
  const res = await runGit(['log', '-1', '--no-walk', '--format=%G?%x00%GT%x00%GS', '--end-of-options', commit], { cwd: repo, allowFailure: true });
  if (res.code !== 0) throw failure(`Could not check the signature of ${name}'s tip in ${repo}: ${firstLine(res.stderr) || `exit code ${res.code}`}; nothing was changed.`);
  const [result, trust, signer] = res.stdout.replace(/\n$/, '').split('\0');
  const short = commit.slice(0, 12);
  let problem: string | null = null;
  if (result === 'G') {
    if (!minTrustLevelSet && !TRUSTED.has(trust ?? '')) problem = `has an untrusted signature, allegedly by ${signer}`;
  } else if (result === 'B') {
    problem = `has a bad signature, allegedly by ${signer}`;
  } else {
    problem = 'does not have a signature';
  }
  if (problem !== null) throw failure(`Commit ${short} (the tip of ${name}) ${problem}, and git's ${setBy} merges only signed commits; nothing was changed.`, 'UNSIGNED');
}
