/**
 * Credentials in command lines and messages that Paddock did not write: a
 * holder's `devserver --api-key=sk…`, `--token xyz`, `API_KEY=… cmd`. Their
 * values are unknown to Paddock, so they are recognised by the name in front
 * of them. Over-redacting a look-alike (`--auth-file=path`) is acceptable;
 * leaking is not.
 */
import { REDACTED } from './redactor';

/** A word of an option or variable name that says its value is a credential. */
const SECRET_WORD = /(?:^|[-_.])(?:keys?|auth|pass|pwd|credentials?|tokens?)(?:$|[-_.])|(?:api|access|private|secret|auth)key|token$|password|passwd|passphrase|secret|credential/i;
/** Environment assignments: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*` (and a few spellings of them). */
const SECRET_VARIABLE = /(?:^|_)(?:KEY|TOKEN|SECRET|CREDENTIALS?|PASS|PWD)$|PASSWORD|PASSWD|SECRET|TOKEN|APIKEY/i;

/** A value as a shell would see it: quoted (either quote) or a word. */
const VALUE = `(?:"[^"]*"?|'[^']*'?|[^\\s"']\\S*)`;
/** `--name=value`, `-name=value`, `name=value` (a variable), each at the start of a word. */
const ASSIGNMENT = new RegExp(`(^|[\\s;&|(?])(-{0,2})([A-Za-z_][A-Za-z0-9_.-]*)=(${VALUE})`, 'g');
/** `--name value` (the next word, unless it is another option). */
const OPTION_THEN_WORD = new RegExp(`(^|[\\s;&|(])(-{1,2}[A-Za-z][A-Za-z0-9_.-]*)([ \\t]+)(?!-)(${VALUE})`, 'g');

/** `text` with the values of credential-named options and variables replaced by REDACTED. */
export function redactCredentialArguments(text: string): string {
  if (!text.includes('=') && !text.includes('-')) return text;
  return text
    .replace(ASSIGNMENT, (whole, before: string, dashes: string, name: string, value: string) => {
      const secret = dashes ? SECRET_WORD.test(name) : SECRET_VARIABLE.test(name);
      return secret && value !== REDACTED ? `${before}${dashes}${name}=${REDACTED}` : whole;
    })
    .replace(OPTION_THEN_WORD, (whole, before: string, option: string, space: string, value: string) =>
      SECRET_WORD.test(option.replace(/^-+/, '')) && value !== REDACTED ? `${before}${option}${space}${REDACTED}` : whole,
    );
}
