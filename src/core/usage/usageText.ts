/**
 * The per-agent figures in words, one wording for the CLI and the window:
 * "85% CPU · 212 MB RAM · 52 MB disk · 12.3k↓ 4.1k↑ tokens". A figure that is
 * unknown (null) is left out, never shown as 0. The figures given are those
 * that still hold (currentUsage.ts): an ended agent's CPU and memory, a
 * removed worktree's size, are null there.
 */
import type { Usage } from '../store/schema';

/** "812 B", "52 KB", "212 MB", "1.4 GB" (powers of 1024, like du -h). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** "950", "12.3k", "4.1M". */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

export function formatCpu(percent: number): string {
  return `${percent < 10 ? percent.toFixed(1) : Math.round(percent)}%`;
}

/** "12.3k in / 4.1k out", with the cost when the agent wrote one. */
export function formatTokens(usage: Usage): string | undefined {
  if (usage.tokensIn === null || usage.tokensOut === null) return undefined;
  const cost = usage.costUsd !== undefined && usage.costUsd !== null ? ` · $${usage.costUsd.toFixed(2)}` : '';
  return `${formatCount(usage.tokensIn)} in / ${formatCount(usage.tokensOut)} out${cost}`;
}

export interface UsageFact {
  label: string;
  value: string;
}

/** Each known figure, labelled (the tooltip's rows, `show`'s lines). */
export function usageFacts(usage: Usage | null): UsageFact[] {
  if (!usage) return [];
  const facts: UsageFact[] = [];
  if (usage.cpuPercent !== null) facts.push({ label: 'CPU', value: formatCpu(usage.cpuPercent) });
  if (usage.rssBytes !== null) facts.push({ label: 'Memory', value: formatBytes(usage.rssBytes) });
  if (usage.diskBytes !== null) facts.push({ label: 'Disk', value: formatBytes(usage.diskBytes) });
  if (usage.outputBytes !== null) facts.push({ label: 'Output', value: formatBytes(usage.outputBytes) });
  const tokens = formatTokens(usage);
  if (tokens) facts.push({ label: 'Tokens', value: tokens });
  return facts;
}

/** One short line: "85% CPU · 212 MB · 52 MB disk". */
export function usageLine(usage: Usage | null): string {
  if (!usage) return '';
  const parts: string[] = [];
  if (usage.cpuPercent !== null) parts.push(`${formatCpu(usage.cpuPercent)} CPU`);
  if (usage.rssBytes !== null) parts.push(formatBytes(usage.rssBytes));
  if (usage.diskBytes !== null) parts.push(`${formatBytes(usage.diskBytes)} disk`);
  if (usage.tokensIn !== null && usage.tokensOut !== null) parts.push(`${formatCount(usage.tokensIn + usage.tokensOut)} tokens`);
  return parts.join(' · ');
}

/** Totals over several agents' current figures (the status bar's tooltip). */
export interface UsageTotals {
  cpuPercent: number;
  rssBytes: number;
  diskBytes: number;
  tokens: number;
  agents: number;
}

export function totalUsage(usages: readonly (Usage | null)[]): UsageTotals {
  const t: UsageTotals = { cpuPercent: 0, rssBytes: 0, diskBytes: 0, tokens: 0, agents: 0 };
  for (const usage of usages) {
    if (!usage) continue;
    t.agents++;
    t.cpuPercent += usage.cpuPercent ?? 0;
    t.rssBytes += usage.rssBytes ?? 0;
    t.diskBytes += usage.diskBytes ?? 0;
    t.tokens += (usage.tokensIn ?? 0) + (usage.tokensOut ?? 0);
  }
  return t;
}
