/**
 * A group comparison in words: plain text for `paddock compare`, markdown for
 * the window's Compare Attempts document. One wording for both doors. Text
 * that came from outside (titles, paths, check output, lines of code) is shown,
 * never obeyed: control characters made visible, markdown escaped or fenced.
 */
import { printable } from '../common/printable';
import type { Check } from '../store/schema';
import type { AttemptComparison, GroupComparison } from './compare';
import type { UnreadableAttempt } from './unreadableAttempts';

function seconds(ms: number | null): string {
  if (ms === null) return '—';
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * "✓ check 41 s", "✗ check (exit 1)", "check running", "no check"; `outOfDate` (`checkOutOfDate`):
 * a result about work from before the agent's last run, never shown as that work's.
 */
export function checkInWords(check: Check | null | undefined, outOfDate = false): string {
  if (!check) return 'no check';
  if (outOfDate && (check.state === 'passed' || check.state === 'failed')) return `check out of date (it ${check.state} before the last run)`;
  switch (check.state) {
    case 'passed':
      return `✓ check ${seconds(check.durationMs)}`;
    case 'failed':
      return check.exitCode !== null ? `✗ check (exit ${check.exitCode})` : '✗ check (did not finish)';
    case 'running':
      return 'check running';
    case 'queued':
      return 'check queued';
  }
}

function attemptName(a: AttemptComparison): string {
  return `#${a.index} ${a.id}${a.profile ? ` (${printable(a.profile)})` : ''}`;
}

function stateWords(a: AttemptComparison): string {
  const exit = a.exitCode !== null && a.exitCode !== 0 ? ` (exit ${a.exitCode})` : '';
  return `${a.state}${exit}${a.cleanedUp ? ', cleaned up' : ''}`;
}

function change(n: number | null): string {
  return n === null ? 'binary' : String(n);
}

/** The attempts no longer in the store, in words; '' when none is. */
function missingWords(c: GroupComparison): string {
  if (c.missing === 0) return '';
  const n = `${c.missing} attempt${c.missing === 1 ? '' : 's'}`;
  // A record whose group cannot be read may be one of them: "forgotten" would be a guess.
  if (c.unreadable.some((u) => !u.certain)) return `${n} not in the list: forgotten, or among the unreadable records named`;
  return `${n} ${c.missing === 1 ? 'was' : 'were'} forgotten`;
}

/** An attempt whose record cannot be read (or a record that may be one): shown, not compared. */
function unreadableWords(u: UnreadableAttempt): string {
  return `${u.id}: unreadable${u.certain ? '' : ' (it may be one of these attempts)'}: ${printable(u.reason)}; its changes are not compared`;
}

export function comparisonText(c: GroupComparison): string {
  const out: string[] = [`${printable(c.group.title)} · group ${c.group.id} · ${c.attempts.length} of ${c.group.size} attempts`];
  const missing = missingWords(c);
  if (missing) out.push(`(${missing})`);
  for (const u of c.unreadable) out.push('', unreadableWords(u));
  for (const a of c.attempts) {
    out.push('', `${attemptName(a)}: ${stateWords(a)} · ${seconds(a.elapsedMs)} · ${checkInWords(a.check, a.checkOutOfDate)}`);
    if (a.unavailable) {
      out.push(`  changes unavailable: ${printable(a.unavailable)}`);
      continue;
    }
    out.push(`  ${a.commits} commit${a.commits === 1 ? '' : 's'}, ${a.files.length} file${a.files.length === 1 ? '' : 's'} changed, +${a.added} −${a.removed}${a.source === 'snapshot' ? ' (from its snapshot)' : ''}`);
    for (const f of a.files) out.push(`  ${f.added === null ? 'binary' : `+${f.added} −${f.removed}`}  ${printable(f.path)}${f.kind ? ` (${f.kind})` : ''}`);
  }
  out.push('', `Lines added in common: ${c.commonCount}`);
  for (const f of c.commonByFile) out.push(`  ${f.lines}  ${printable(f.path)}`);
  return `${out.join('\n')}\n`;
}

/** Markdown table cell: escaped so a path or title cannot become a link, an image or HTML. */
function cell(text: string): string {
  return printable(text).replace(/([\\`*_{}[\]()<>#+\-.!|~&])/g, '\\$1');
}

export function comparisonMarkdown(c: GroupComparison): string {
  const missing = missingWords(c);
  const lines: string[] = [`# ${cell(c.group.title)}`, '', `Group \`${c.group.id}\` · ${c.attempts.length} of ${c.group.size} attempts${missing ? ` · ${cell(missing)}` : ''}${c.baseSha ? ` · base \`${c.baseSha.slice(0, 10)}\`` : ''}`, ''];
  for (const u of c.unreadable) lines.push(`- ${cell(unreadableWords(u))}`, '');
  lines.push('| Attempt | State | Elapsed | Check | Commits | Files | + | − |', '|---|---|---|---|---:|---:|---:|---:|');
  for (const a of c.attempts) {
    const files = a.unavailable ? '—' : String(a.files.length);
    lines.push(`| ${cell(attemptName(a))} | ${cell(stateWords(a))} | ${seconds(a.elapsedMs)} | ${cell(checkInWords(a.check, a.checkOutOfDate))} | ${a.unavailable ? '—' : a.commits} | ${files} | ${a.unavailable ? '—' : a.added} | ${a.unavailable ? '—' : a.removed} |`);
  }
  for (const a of c.attempts) {
    lines.push('', `## ${cell(attemptName(a))}`, '');
    if (a.unavailable) {
      lines.push(`Changes unavailable: ${cell(a.unavailable)}`);
      continue;
    }
    if (a.source === 'snapshot') lines.push('_Read from its evidence snapshot (cleaned up)._', '');
    if (a.files.length === 0) lines.push('No changes.');
    else {
      lines.push('| File | + | − |', '|---|---:|---:|');
      for (const f of a.files) lines.push(`| ${cell(f.path)}${f.kind ? ` (${f.kind})` : ''} | ${change(f.added)} | ${change(f.removed)} |`);
    }
    if (a.check?.summary) lines.push('', '<details><summary>Check output</summary>', '', fence(a.check.summary), '', '</details>');
  }
  lines.push('', `## Lines added in common (${c.commonCount})`, '');
  lines.push('_A line added to the same file by two or more attempts (compared trimmed, blank lines ignored)._', '');
  if (c.commonCount === 0) lines.push('None.');
  for (const f of c.commonByFile) {
    lines.push(`### ${cell(f.path)} (${f.lines})`, '');
    const shown = c.common.filter((l) => l.path === f.path);
    lines.push(fence(shown.map((l) => `${l.text}    # ${l.attempts.join(', ')}`).join('\n')), '');
  }
  return `${lines.join('\n')}\n`;
}

/** A fenced block long enough that nothing inside can close it. */
function fence(text: string): string {
  const shown = printableLines(text);
  const longest = Math.max(2, ...(shown.match(/`+/g) ?? []).map((m) => m.length));
  const bar = '`'.repeat(longest + 1);
  return `${bar}text\n${shown}\n${bar}`;
}

/** Several lines of outside text: each line made printable, the line breaks kept. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
