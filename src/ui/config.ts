/**
 * `paddock.*` settings, read on every use so changes apply without a reload.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CoordinatorSettings } from '../core/coordinator';
import { defaultHome } from '../core/store';

export const SECTION = 'paddock';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

export function coordinatorSettings(): Partial<CoordinatorSettings> {
  const c = config();
  const worktreeRoot = c.get<string>('worktreeRoot', '').trim();
  return {
    maxConcurrent: c.get<number>('maxConcurrent', 4),
    worktreeRoot: worktreeRoot ? expandHome(worktreeRoot) : null,
    stopGraceSeconds: c.get<number>('stopGraceSeconds', 10),
    profiles: c.get<unknown>('profiles', {}),
    defaultProfile: c.get<string>('defaultProfile', 'claude'),
    regenerable: c.get<string[]>('cleanup.regenerable'),
    archiveLimitMB: c.get<number>('cleanup.archiveLimitMB'),
    endLeftoversOnExit: c.get<boolean>('endLeftoversOnExit', true),
  };
}

/** The store: `paddock.storePath`, else $PADDOCK_HOME / $XDG_STATE_HOME/paddock (shared with the CLI). */
export function storePath(): string {
  return storePathSetting() ?? defaultHome(process.env);
}

/** `paddock.storePath` when it is set (with `~/` expanded), else undefined. */
export function storePathSetting(): string | undefined {
  const configured = config().get<string>('storePath', '').trim();
  return configured ? expandHome(configured) : undefined;
}

export function openTerminalOnStart(): boolean {
  return config().get<boolean>('openTerminalOnStart', true);
}

export type NotificationKind = 'waiting' | 'failed' | 'cleanup';

export function notificationsEnabled(kind: NotificationKind): boolean {
  return config().get<boolean>(`notifications.${kind}`, true);
}

/** `paddock.showCleanedFor`: hours a cleaned agent stays in the tree after its cleanup completed (default 24). */
export function showCleanedForHours(): number {
  const hours = config().get<number>('showCleanedFor', 24);
  return typeof hours === 'number' && Number.isFinite(hours) && hours >= 0 ? hours : 24;
}
