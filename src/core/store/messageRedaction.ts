/**
 * How text that Paddock did not write (errors, holders' and leftovers' command lines,
 * details, timeline messages) is redacted on its way into the store: the
 * configured secrets, the job's secret variables, token shapes, and
 * credential-named options and variables in command lines. Redacted whole, then cut to the
 * schema's limits, here and only here: text cut first (a command line at 500 characters) could cut
 * a secret past recognition and store its first part. So what finds such text (holders, leftovers,
 * survivors, stop details) hands it over uncut.
 */
import { redactCredentialArguments } from './credentialArgs';
import { Redactor } from './redactor';
import { JobRecord, TimelineEntry } from './schema';

export type RedactText = (text: string) => string;

/** The schema's limits for details, errors and messages, and for holders' commands and the branch outcome. */
const MAX_MESSAGE = 2000;
const MAX_SHORT_TEXT = 500;
/** The schema's limit on a check's summary (its last lines: the end is what matters). */
const MAX_CHECK_SUMMARY = 4000;

export class MessageRedaction {
  constructor(
    private readonly redactor: Redactor,
    /** Where the values of a job's secret variables are looked up. */
    private readonly secretEnv: NodeJS.ProcessEnv,
  ) {}

  /** The redaction for messages about `job` (or store-wide secrets only, without a job). */
  forJob(job: JobRecord | undefined): RedactText {
    const r = job ? this.redactor.withEnv(job.settings.secretEnvNames, this.secretEnv) : this.redactor;
    return (text) => redactCredentialArguments(r.redact(text));
  }
}

/** The record's strings that come from outside Paddock, redacted: every record write goes through here. */
export function redactRecord(job: JobRecord, redact: RedactText): JobRecord {
  const nullable = (text: string | null, max: number): string | null => (text === null ? null : capped(redact(text), max));
  const redactHolder = <P extends { command: string }>(p: P): P => ({ ...p, command: capped(redact(p.command), MAX_SHORT_TEXT) });
  return {
    ...job,
    lifecycle: { ...job.lifecycle, detail: nullable(job.lifecycle.detail, MAX_MESSAGE) },
    cleanup: job.cleanup && {
      ...job.cleanup,
      lastError: nullable(job.cleanup.lastError, MAX_MESSAGE),
      holders: job.cleanup.holders.map(redactHolder),
      branchOutcome: nullable(job.cleanup.branchOutcome, MAX_SHORT_TEXT),
    },
    ...(job.check ? { check: { ...job.check, summary: tail(redact(job.check.summary), MAX_CHECK_SUMMARY) } } : {}),
    // What the ended agent left running, named by their command lines like the holders (bug 149).
    ...(job.leftovers ? { leftovers: job.leftovers.map(redactHolder) } : {}),
    // What outlived the worker's SIGKILL, named by their command lines (the detail's words: leftoverWords.ts).
    ...(job.leftoversFate?.survivors ? { leftoversFate: { ...job.leftoversFate, survivors: capped(redact(job.leftoversFate.survivors), MAX_MESSAGE) } } : {}),
    // Why a failed launch's worktree is kept: a look's error text may name what the detail's would.
    ...(job.keptWorktree ? { keptWorktree: { ...job.keptWorktree, why: capped(redact(job.keptWorktree.why), MAX_MESSAGE) } } : {}),
  };
}

export function redactEntry(entry: TimelineEntry, redact: RedactText): TimelineEntry {
  return entry.message === undefined ? entry : { ...entry, message: capped(redact(entry.message), MAX_MESSAGE) };
}

/** `[REDACTED]` can be longer than what it replaced: the result must still fit the schema. */
function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The end of `text` within `max` characters (a check's last lines). */
function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}
