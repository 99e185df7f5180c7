/** Plain-text views of agents for people (the JSON views are in json.ts). */
import { checkInWords } from '../../core/attempts/compareReport';
import { checkOutOfDate } from '../../core/check/checkCurrency';
import { printable } from '../../core/common/printable';
import type { EvidenceSummary } from '../../core/git/evidenceManifest';
import { leftoversInWords } from '../../core/operations/leftovers';
import type { JobEntry, JobRecord } from '../../core/store';
import { suspensionWords, type Suspension } from '../../core/store/suspension';
import { currentUsage, isLiveAgent } from '../../core/usage/currentUsage';
import { formatBytes, formatCount, formatCpu, usageFacts } from '../../core/usage/usageText';
import { shownDetail } from '../../core/scheduler/keptWorktree';

const FIGURES = `${'CPU'.padStart(6)} ${'MEM'.padStart(7)} ${'DISK'.padStart(7)} ${'UP'.padStart(4)} ${'TOKENS'.padStart(7)}`;
export const HEADER = `${'ID'.padEnd(12)} ${'STATE'.padEnd(10)} ${'GEN'.padStart(3)} ${'CLEANUP'.padEnd(12)} ${FIGURES} TITLE`;

/** "12m", "3h": how long the current execution has run (live agents only). */
function elapsed(job: JobRecord, now: number): string | undefined {
  const started = job.lifecycle.startedAt ? Date.parse(job.lifecycle.startedAt) : NaN;
  if (!isLiveAgent(job) || !Number.isFinite(started)) return undefined;
  const s = Math.max(0, Math.floor((now - started) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return s < 48 * 3600 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86_400)}d`;
}

/** The figure columns: '-' where there is no figure (an ended agent's CPU, an agent that writes no transcript). */
function figureColumns(job: JobRecord, now: number): string {
  const u = currentUsage(job);
  const cell = (text: string | undefined, width: number) => (text ?? '-').padStart(width);
  const tokens = u && u.tokensIn !== null && u.tokensOut !== null ? formatCount(u.tokensIn + u.tokensOut) : undefined;
  return [
    cell(u && u.cpuPercent !== null ? formatCpu(u.cpuPercent) : undefined, 6),
    cell(u && u.rssBytes !== null ? formatBytes(u.rssBytes).replace(' ', '') : undefined, 7),
    cell(u && u.diskBytes !== null ? formatBytes(u.diskBytes).replace(' ', '') : undefined, 7),
    cell(elapsed(job, now), 4),
    cell(tokens, 7),
  ].join(' ');
}

function cleanupLabel(job: JobRecord): string {
  const c = job.cleanup;
  if (!c) return '-';
  if (c.phase === 'incomplete') return c.needsAttention ? 'incomplete!' : 'incomplete';
  return c.phase;
}

/** `suspension`: the agent's worker or the agent stopped (SIGSTOP), read from the processes (suspension.ts). */
export function formatRow(entry: JobEntry, now = Date.now(), suspension?: Suspension): string {
  if (!entry.ok) return `${entry.id.padEnd(12)} ${'unreadable'.padEnd(10)} ${''.padStart(3)} ${'-'.padEnd(12)} ${''.padStart(FIGURES.length)} ${printable(entry.reason)}`;
  const j = entry.job;
  // Titles are the person's or the agent's text: shown, never obeyed (a newline must not fake a row).
  const shownTitle = printable(j.title);
  const title = shownTitle.length > 60 ? `${shownTitle.slice(0, 59)}…` : shownTitle;
  const notes = [suspension ? suspensionWords(suspension) : undefined, leftoversInWords(j), j.autoApprove ? 'auto-approve' : undefined].filter(Boolean).map((n) => ` [${n}]`).join('');
  return `${j.id.padEnd(12)} ${j.lifecycle.state.padEnd(10)} ${String(j.lifecycle.generation).padStart(3)} ${cleanupLabel(j).padEnd(12)} ${figureColumns(j, now)} ${title}${notes}`;
}

function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;
}

/** What cleanup kept, archived, dropped as regenerable and lost with consent. */
export function evidenceLines(s: EvidenceSummary): [string, string][] {
  const lines: [string, string][] = [['captured', `${s.captured.files} file(s) in the snapshot`]];
  lines.push(['archived', `${s.archived.files} file(s), ${size(s.archived.bytes)}; ${s.emptyDirs} empty folder(s)`]);
  if (s.nested.length) lines.push(['nested repos', s.nested.join(', ')]);
  if (s.keptGitDirs?.length) lines.push(['git dirs kept', `${s.keptGitDirs.join(', ')} (no checkout; restore puts them back in the worktree's git dir)`]);
  if (s.keptCommits) lines.push(['kept commits', `${s.keptCommits} only the reflog knew`]);
  for (const words of s.foreignWorktrees ?? []) lines.push(['other repo', printable(words)]);
  if (s.regenerable.files) lines.push(['regenerable', `${s.regenerable.files} file(s), ${size(s.regenerable.bytes)} dropped: ${s.regenerable.roots.slice(0, 5).join(', ')}`]);
  if (s.lostCount) lines.push(['lost (agreed)', `${s.lostCount} path(s): ${s.lost.slice(0, 5).map((l) => `${l.path} (${l.why === 'unreadable' ? 'unreadable' : size(l.bytes)})`).join(', ')}`]);
  return lines;
}

/**
 * `show` without --json: one fact per line. `work`: where the agent's work stands against its base,
 * in words ("2 commits ahead of main · …"); `suspension`: its worker or itself stopped (SIGSTOP).
 */
export function formatDetails(job: JobRecord, work = '', suspension?: Suspension): string {
  const l = job.lifecycle;
  const lines: [string, string | number | null][] = [
    ['id', job.id],
    ['title', job.title],
    ['state', l.state + (l.waitingReason ? ` (${l.waitingReason})` : '') + (suspension ? ` · ${suspensionWords(suspension)}` : '')],
    ['generation', l.generation],
    ['detail', shownDetail(job)],
    ['exit code', l.exitCode],
    ['signal', l.signal],
    ['agent pid', l.pid],
    ['worker pid', l.workerPid],
    ['started', l.startedAt],
    ['ended', l.endedAt],
    ['command', job.command.join(' ')],
    ['profile', job.profile],
    ['auto-approve', job.autoApprove ? 'on: the agent acts without asking for approval' : null],
    ['repo', job.repo],
    ['worktree', job.worktree],
    ['branch', job.branch],
    ['base', job.base && job.baseSha ? `${job.base} (${job.baseSha.slice(0, 12)})` : job.base],
    ['work', work],
  ];
  const left = job.leftovers ?? [];
  if (left.length > 0) lines.push(['leftovers', `${leftoversInWords(job)}; paddock stop ${job.id} ends them`]);
  for (const p of left) lines.push(['left running', `pid ${p.pid} (${p.command})`]);
  if (job.group) lines.push(['attempt', `${job.group.index} of ${job.group.size} in group ${job.group.id}`]);
  if (job.check) lines.push(['check', `${checkInWords(job.check, checkOutOfDate(job))}${job.check.summary ? `: ${job.check.summary.split('\n').slice(-3).join(' / ')}` : ''}`]);
  const c = job.cleanup;
  if (c) {
    lines.push(['cleanup', c.phase + (c.remaining.length ? ` (remaining: ${c.remaining.join(', ')})` : '')]);
    if (c.stage) lines.push(['failed stage', c.stage]);
    if (c.lastError) lines.push(['last error', c.lastError]);
    if (c.failures) lines.push(['failures', c.failures]);
    if (c.nextAttemptAt && c.phase === 'incomplete') lines.push(['next attempt', c.nextAttemptAt]);
    if (c.needsAttention) lines.push(['attention', 'cleanup keeps failing; see the last error']);
    for (const h of c.holders) lines.push(['held by', `pid ${h.pid} (${h.command})`]);
    if (c.branchOutcome) lines.push(['branch', c.branchOutcome]);
  }
  const facts = usageFacts(currentUsage(job));
  for (const fact of facts) lines.push([fact.label.toLowerCase(), fact.value]);
  if (facts.length && job.usage) lines.push(['figures at', job.usage.sampledAt]);
  const e = job.evidence;
  if (e) {
    lines.push(['snapshot', e.snapshotRef]);
    lines.push(['patch', e.patch]);
    if (e.archive) lines.push(['archive', e.archive]);
    if (e.summary) lines.push(...evidenceLines(e.summary));
  }
  return lines
    .filter(([, v]) => v !== null && v !== '')
    // Every value may hold text Paddock did not write (titles, errors, command lines).
    .map(([k, v]) => `${`${k}:`.padEnd(14)} ${printable(String(v))}`)
    .join('\n');
}
