/**
 * How an agent looks in the tree: words, icon, colour, sort rank and the
 * capabilities its context menu offers. Pure (no `vscode`), computed from the
 * cached record and the current time, so relative times refresh without
 * re-reading the store.
 */
import type { JobRecord, LifecycleState } from '../../core/store/schema';
import { isTerminalState } from '../../core/store/schema';
import { printable } from '../../core/common/printable';
import { currentUsage, isLiveAgent } from '../../core/usage/currentUsage';
import { usageFacts, usageLine } from '../../core/usage/usageText';
import type { Standing } from '../../core/git/standing';
import { landingWords, pullRequestNumber, standingWords } from '../../core/git/standingWords';
import {
  canAttach,
  canCleanUp,
  canCleanUpAnyway,
  canForget,
  canLand,
  canUpdate,
  canRestore,
  canRetry,
  setupFailed,
  canRetryCleanup,
  canCheck,
  canKeep,
  canSend,
  canSendReview,
  canStop,
  hasBranch,
  hasLiveWorktree,
} from '../../core/operations/rules';
import { leftoversInWords } from '../../core/operations/leftovers';
import { suspensionWords, type Suspension } from '../../core/store/suspension';
import { checkInWords } from '../../core/attempts/compareReport';
import { checkOutOfDate } from '../../core/check/checkCurrency';
import { shownDetail } from '../../core/scheduler/keptWorktree';

export interface AgentLook {
  description: string;
  iconId: string;
  colorId: string | undefined;
  /** Lower sorts first: agents that need the person come first. */
  rank: number;
  contextValue: string;
}

const STATE_WORDS: Record<LifecycleState, string> = {
  queued: 'queued',
  starting: 'starting',
  running: 'running',
  waiting: 'waiting for you',
  cancelling: 'stopping',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'stopped',
  orphaned: 'orphaned',
};

const STATE_ICONS: Record<LifecycleState, [string, string | undefined]> = {
  queued: ['clock', 'disabledForeground'],
  starting: ['loading~spin', undefined],
  running: ['play-circle', 'charts.green'],
  waiting: ['bell-dot', 'charts.yellow'],
  cancelling: ['loading~spin', undefined],
  completed: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  cancelled: ['circle-slash', 'disabledForeground'],
  orphaned: ['debug-disconnect', 'list.warningForeground'],
};

/** "12m", "3h", "2d": compact, like the Git view's times. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function since(iso: string | null, now: number): string | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? shortDuration(now - t) : undefined;
}

export function stateInWords(job: JobRecord): string {
  const { state, exitCode, signal } = job.lifecycle;
  // The worktree's setup command runs before the agent: say so rather than a bare "starting".
  if (state === 'starting' && job.setup?.state === 'running') return 'setting up';
  if (setupFailed(job) && job.setup) {
    return job.setup.exitCode !== null ? `setup failed (exit ${job.setup.exitCode})` : 'setup failed';
  }
  if (state === 'failed') {
    if (signal) return `failed (${signal})`;
    if (exitCode !== null) return `failed (exit ${exitCode})`;
  }
  if (state === 'completed' && exitCode !== null && exitCode !== 0) return `completed (exit ${exitCode})`;
  return STATE_WORDS[state];
}

function cleanupWords(job: JobRecord, now: number): string | undefined {
  const c = job.cleanup;
  if (!c) return undefined;
  switch (c.phase) {
    case 'complete':
      return /kept/.test(c.branchOutcome ?? '') ? 'cleaned · branch kept' : 'cleaned';
    case 'incomplete': {
      const at = c.stage ? ` at ${c.stage}` : '';
      if (c.awaitingConsent) return 'cleanup paused · would lose files, needs your decision';
      if (c.awaitingRetry) return `cleanup paused${at} · fails the same way each time, retry it once fixed`;
      if (c.needsAttention) return `cleanup failed${at} · needs attention`;
      const next = c.nextAttemptAt ? Date.parse(c.nextAttemptAt) - now : NaN;
      if (!Number.isFinite(next)) return `cleanup failed${at}`;
      return next > 1000 ? `cleanup failed${at} · retry in ${shortDuration(next)}` : `cleanup failed${at} · retrying`;
    }
    default:
      return `cleaning up (${c.phase})`;
  }
}

export function capabilitiesOf(job: JobRecord): string[] {
  const caps: string[] = ['log'];
  if (canAttach(job)) caps.push('attach');
  if (canSend(job)) caps.push('send');
  if (canStop(job)) caps.push('stop');
  if (canRetry(job)) caps.push('retry');
  if (canCleanUp(job)) caps.push('cleanup');
  if (canRetryCleanup(job)) caps.push('retryCleanup');
  if (hasLiveWorktree(job)) caps.push('worktree');
  if (hasBranch(job)) caps.push('branch');
  if (job.evidence?.patch) caps.push('patch');
  if (canCleanUpAnyway(job)) caps.push('consent');
  if (canRestore(job)) caps.push('restore');
  if (canSendReview(job) && hasLiveWorktree(job)) caps.push('review');
  if (canLand(job)) caps.push('land');
  if (canUpdate(job)) caps.push('update');
  if (canForget(job)) caps.push('forget');
  if (canCheck(job)) caps.push('check');
  if (canKeep(job)) caps.push('keep');
  return caps;
}

/** An attempt's row under its group: its place and what runs it ("Attempt 2 · codex"). */
export function attemptLabel(job: JobRecord): string {
  const who = job.profile ?? job.command[0].split('/').pop() ?? '';
  return `Attempt ${job.group?.index ?? '?'} · ${printable(who)}`;
}

export interface GroupLook {
  title: string;
  description: string;
  colorId: string | undefined;
  rank: number;
  contextValue: string;
}

/** A group node's words ("3 attempts · 2 done, 1 running · 1 ✓ check"), colour, rank and capabilities. */
export function groupLookOf(members: readonly JobRecord[], now = Date.now()): GroupLook {
  const first = members[0];
  const size = first?.group?.size ?? members.length;
  const count = (pred: (j: JobRecord) => boolean) => members.filter(pred).length;
  const done = count((j) => isTerminalState(j.lifecycle.state));
  const running = count((j) => ['starting', 'running', 'waiting', 'cancelling'].includes(j.lifecycle.state));
  const queued = count((j) => j.lifecycle.state === 'queued');
  const waiting = count((j) => j.lifecycle.state === 'waiting');
  const passed = count((j) => j.check?.state === 'passed' && !checkOutOfDate(j));
  const failed = count((j) => j.check?.state === 'failed' && !checkOutOfDate(j));
  const states = [done && `${done} done`, running && `${running} running`, queued && `${queued} queued`].filter(Boolean).join(', ');
  const checks = [passed && `${passed} ✓ check`, failed && `${failed} ✗ check`].filter(Boolean).join(', ');
  const parts = [`${size} attempts`, states, checks, members.length < size ? `${size - members.length} gone` : ''].filter(Boolean);
  const caps = ['compare'];
  if (members.some(canStop)) caps.push('stop');
  if (members.some(canSend)) caps.push('send');
  const rank = Math.min(...members.map((j) => lookOf(j, now).rank));
  return {
    title: first?.group?.title ?? first?.title ?? '',
    description: parts.join(' · '),
    colorId: waiting ? 'charts.yellow' : running ? 'charts.green' : undefined,
    rank,
    contextValue: `group:${caps.join('.')}`,
  };
}

export interface LookOptions {
  /** `paddock.tree.showUsage`: the figures follow the state in the description. */
  showUsage?: boolean;
  /** Where the work stands against the base, when it has been computed (never computed here). */
  standing?: Standing;
  /** Its worker or the agent stopped (SIGSTOP), as last read from the processes (never read here). */
  suspension?: Suspension;
}

export function lookOf(job: JobRecord, now: number, opts: LookOptions = {}): AgentLook {
  const state = job.lifecycle.state;
  const parts = [stateInWords(job)];
  const cleanup = cleanupWords(job, now);
  if (state === 'running' || state === 'starting' || state === 'queued') {
    const t = since(state === 'queued' ? job.createdAt : job.lifecycle.startedAt ?? job.createdAt, now);
    if (t) parts.push(t);
  } else if (state === 'waiting') {
    const t = since(job.lifecycle.lastActivityAt ?? job.lifecycle.startedAt, now);
    if (t) parts.push(t);
  }
  // The state stays as recorded; a stopped worker or agent is said right after it (it waits for nobody).
  if (opts.suspension) parts.push(suspensionWords(opts.suspension));
  let [iconId, colorId] = STATE_ICONS[state];
  let rank = state === 'waiting' && !opts.suspension ? 0 : state === 'failed' || state === 'orphaned' ? 1 : ended(state) ? 4 : state === 'queued' ? 3 : 2;
  if (opts.suspension) [iconId, colorId] = ['debug-pause', 'list.warningForeground'];
  if (job.cleanup) {
    const c = job.cleanup;
    if (c.phase === 'complete') {
      [iconId, colorId] = ['archive', 'disabledForeground'];
      rank = 5;
    } else if (c.phase === 'incomplete') {
      [iconId, colorId] = c.needsAttention ? ['warning', 'list.errorForeground'] : ['warning', 'list.warningForeground'];
      rank = c.needsAttention ? 0 : 1;
    } else {
      [iconId, colorId] = ['loading~spin', undefined];
      rank = 2;
    }
  }
  if (job.check) parts.push(checkInWords(job.check, checkOutOfDate(job)));
  const figures = opts.showUsage ? usageLine(currentUsage(job)) : '';
  // What the person should know at a glance besides the state: what still runs, and that it acts without asking.
  const notes = [leftoversInWords(job), job.autoApprove ? AUTO_APPROVE_MARKER : undefined, figures || undefined].filter((n): n is string => n !== undefined);
  // Where the work stands against its base (computed elsewhere, cached): after the state, before the notes.
  const work = standingWords(job, opts.standing);
  return {
    description: [...(cleanup ? [parts[0], cleanup] : parts), ...(work ? [work] : []), ...notes].join(' · '),
    iconId,
    colorId,
    rank,
    contextValue: `agent:${state}:${capabilitiesOf(job).join('.')}`,
  };
}

/** The tooltip's rows about the work against its base: the figures in full and the landing. */
function standingRows(job: JobRecord, s: Standing | undefined): (string | undefined)[] {
  const rows: (string | undefined)[] = [];
  if (s) {
    rows.push(
      row('Against base', `${s.ahead} commit(s) ahead, ${s.behind} behind ${s.baseName}${s.merged ? ' (merged)' : ''}`),
      row('Committed changes', `${s.files} file(s), +${s.insertions} −${s.deletions}`),
      row('Uncommitted', s.uncommittedFiles ? `${s.uncommittedFiles} file(s)` : 'none'),
    );
  }
  const landing = job.landing;
  if (landing) {
    rows.push(row('Landed', `${landingWords(landing)} (${landing.kind}), ${localTime(landing.at) ?? ''}`), row('Landed commit', landing.commit?.slice(0, 12)), row(pullRequestNumber(landing.url) ? 'Pull request' : 'Compare page', landing.url));
  }
  return rows;
}

/** The row's marker of an agent started with its profile's auto-approve flag. */
export const AUTO_APPROVE_MARKER = 'auto-approve';

function ended(state: LifecycleState): boolean {
  return isTerminalState(state);
}

function row(label: string, value: string | number | null | undefined): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return `| ${label} | ${escapeCell(String(value))} |`;
}

/**
 * Text Paddock did not write, for one cell of the tooltip's markdown: control
 * characters shown (printable), then everything markdown or HTML would act on
 * escaped (a title must not become a link, an image or a command).
 */
export function escapeCell(text: string): string {
  return printable(text).replace(/([\\`*_{}[\]()<>#+\-.!|~&])/g, '\\$1');
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function localTime(iso: string | null): string | undefined {
  return iso ? new Date(iso).toLocaleString() : undefined;
}

/** The tooltip's markdown: everything a person may need to judge the agent, in one table. */
export function tooltipMarkdown(job: JobRecord, now: number, standing?: Standing, suspension?: Suspension): string {
  const l = job.lifecycle;
  const c = job.cleanup;
  const e = job.evidence;
  const lines = [
    `**${escapeCell(job.title)}** — ${escapeCell(lookOf(job, now, { standing, suspension }).description)}`,
    '',
    '| | |',
    '|---|---|',
    row('Agent', job.id),
    row('Branch', job.branch),
    row('Worktree', job.worktree),
    row('Base', job.base),
    row('Command', job.command.join(' ')),
    row('Generation', l.generation > 1 ? l.generation : null),
    row('Agent pid', l.pid),
    row('Worker pid', l.workerPid),
    row('Started', localTime(l.startedAt)),
    row('Ended', localTime(l.endedAt)),
    row('Exit code', l.exitCode),
    row('Signal', l.signal),
    row('Suspended', suspension ? suspensionWords(suspension) : null),
    row('Detail', shownDetail(job)),
    row('Auto-approve', job.autoApprove ? 'on: the agent acts without asking for approval' : null),
    row('Left running', job.leftovers?.length ? job.leftovers.map((p) => `pid ${p.pid} (${p.command})`).join(', ') : null),
    row('Attempt', job.group ? `${job.group.index} of ${job.group.size} (group ${job.group.id})` : null),
    row('Check', job.check ? checkInWords(job.check, checkOutOfDate(job)) : null),
    row('Check output', job.check?.summary ? job.check.summary.split('\n').slice(-5).join(' / ') : null),
    ...standingRows(job, standing),
  ];
  const live = isLiveAgent(job);
  if (live && l.startedAt) lines.push(row('Running for', since(l.startedAt, now)));
  const facts = usageFacts(currentUsage(job));
  for (const fact of facts) lines.push(row(fact.label, fact.value));
  if (facts.length && job.usage) lines.push(row('Figures as of', localTime(job.usage.sampledAt)));
  if (c) {
    lines.push(
      row('Cleanup', c.phase),
      row('Remaining', c.remaining.length ? c.remaining.join(', ') : null),
      row('Failed stage', c.stage),
      row('Failures', c.failures || null),
      row('Next attempt', c.phase === 'incomplete' ? localTime(c.nextAttemptAt) : null),
      row('Last error', c.lastError),
      row('Held by', c.holders.length ? c.holders.map((h) => `pid ${h.pid} (${h.command})`).join(', ') : null),
      row('Branch', c.branchOutcome),
    );
  }
  if (e) {
    lines.push(row('Snapshot ref', e.snapshotRef), row('Patch', e.patch), row('Head', e.headSha?.slice(0, 12)));
    const sum = e.summary;
    if (sum) {
      lines.push(
        row('Captured', `${sum.captured.files} file(s) in the snapshot`),
        row('Archived', `${sum.archived.files} file(s) (${megabytes(sum.archived.bytes)}), ${sum.emptyDirs} empty folder(s)${sum.nested.length ? `, nested repos: ${sum.nested.slice(0, 5).join(', ')}` : ''}`),
        row('Git dirs kept', sum.keptGitDirs?.length ? `${sum.keptGitDirs.slice(0, 5).join(', ')} (no checkout)` : null),
        row('Kept commits', sum.keptCommits ? `${sum.keptCommits} only the reflog knew` : null),
        row('Regenerable, dropped', sum.regenerable.files ? `${sum.regenerable.files} file(s) (${megabytes(sum.regenerable.bytes)}): ${sum.regenerable.roots.slice(0, 5).join(', ')}` : null),
        row('Lost, as agreed', sum.lostCount ? `${sum.lostCount}: ${sum.lost.slice(0, 5).map((l) => l.path).join(', ')}` : null),
      );
    }
  }
  return lines.filter((x): x is string => x !== undefined).join('\n');
}
