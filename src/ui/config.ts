/**
 * `paddock.*` settings, read on every use so changes apply without a reload.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CoordinatorSettings } from '../core/coordinator';
import { defaultHome } from '../core/store';
import type { WorktreeSettings } from '../core/repoConfig/worktreeConfig';
import type { TrustedWorkspaceFolders } from './trustedWorkspaceFolders';

export const SECTION = 'paddock';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

export function coordinatorSettings(trustedFolders: TrustedWorkspaceFolders): Partial<CoordinatorSettings> {
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
    worktree: worktreeSettings(c),
    // VS Code ignores workspace values of the restricted settings (setup, teardown) while it is untrusted.
    trustedFolders: trustedFolders.list(),
    checkCommand: c.get<string>('checkCommand', '').trim() || null,
  };
}

/** `paddock.worktree.*` as set (a key left at its default is left out, so `.paddock.json` decides it). */
function worktreeSettings(c: vscode.WorkspaceConfiguration): WorktreeSettings {
  const set = <T>(key: string): T | undefined => {
    const i = c.inspect<T>(`worktree.${key}`);
    return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
  };
  const out: WorktreeSettings = {};
  const copy = set<string[]>('copy');
  const link = set<string[]>('link');
  const setup = set<string>('setup');
  const teardown = set<string>('teardown');
  const timeout = set<number | null>('setupTimeoutSeconds');
  const ports = set<number | null>('ports');
  const portRange = set<string>('portRange');
  if (Array.isArray(copy)) out.copy = copy;
  if (Array.isArray(link)) out.link = link;
  if (typeof setup === 'string' && setup.trim()) out.setup = setup;
  if (typeof teardown === 'string' && teardown.trim()) out.teardown = teardown;
  if (typeof timeout === 'number') out.setupTimeoutSeconds = timeout;
  if (typeof ports === 'number') out.ports = ports;
  if (typeof portRange === 'string' && portRange.trim()) out.portRange = portRange;
  return out;
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

/** After a landing: `ask` (offer Clean Up), `always` (clean up at once) or `never`. */
export function cleanUpAfterLanding(): 'ask' | 'always' | 'never' {
  const value = config().get<string>('cleanUpAfterLanding', 'ask');
  return value === 'always' || value === 'never' ? value : 'ask';
}

/** `paddock.tree.showUsage`: CPU, memory, disk and tokens in each agent's description (default off; always in the tooltip). */
export function showUsageInTree(): boolean {
  return config().get<boolean>('tree.showUsage', false);
}
