/**
 * git's refusal to make a commit without the person's name and email ("Author identity unknown",
 * "unable to auto-detect email address", "no email was given and auto-detection is disabled")
 * names no command to run; the sentences that carry it say the way out.
 */
const NO_IDENTITY = /identity unknown|unable to auto-detect|no (name|email) was given|empty ident name/i;

/** The way out, in parentheses after git's words, when `stderr` is that refusal; else ''. */
export function identityHint(stderr: string): string {
  return NO_IDENTITY.test(stderr) ? ' (git needs your name and email: git config --global user.name NAME and user.email ADDRESS)' : '';
}
