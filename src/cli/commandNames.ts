/**
 * The CLI's verbs, apart from the table that loads them (main.ts), so that
 * the small loader (bin.ts) can name each verb's code cache without loading
 * the bundle: every verb keeps its own, holding the functions it compiled.
 */
export const COMMAND_NAMES = ['start', 'list', 'show', 'attach', 'send', 'screen', 'logs', 'stop', 'retry', 'cleanup', 'restore', 'coordinate', 'signal', 'allow', 'merge', 'update', 'apply', 'pr', 'forget', 'prune', 'check', 'compare'] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];
