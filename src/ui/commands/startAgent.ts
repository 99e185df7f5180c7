/**
 * Paddock: Start Agent — prompt, profile, repository (multi-root) and optional
 * base, then the agent appears at once and (by setting) its terminal opens.
 * Programmatic callers may pass the answers as one options object.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MAX_PROMPT_CHARS, profileNames, resolveProfile } from '../../core/profiles';
import type { JobRecord } from '../../core/store/schema';
import { coordinatorSettings, openTerminalOnStart } from '../config';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

export interface StartAgentOptions {
  repo?: string;
  prompt?: string;
  title?: string;
  profile?: string;
  base?: string;
  command?: string[];
  /** Start with the profile's auto-approve arguments; asked (when the profile has them) if not given. */
  autoApprove?: boolean;
  openTerminal?: boolean;
}

const BUILTIN_DESCRIPTIONS: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'OpenAI Codex CLI',
  aider: 'Aider',
  shell: 'Your shell in the agent\'s worktree',
  demo: 'A small demo agent: works in its worktree, asks [y/n], no agent CLI needed',
};

export function registerStartAgent(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.startAgent', async (arg?: unknown) => {
    const given = (arg && typeof arg === 'object' && !Array.isArray(arg) ? arg : {}) as StartAgentOptions;
    const answers = await ask(s, given);
    if (!answers) return undefined;
    // Making the worktree and starting the worker take a moment: show it until the terminal opens.
    // A start that fails says why once, through the command wrapper's message (with Show Log).
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Paddock: starting the agent…') }, async (progress) => {
      progress.report({ message: vscode.l10n.t('creating its worktree and branch') });
      const job = await s.coordinator.start(answers);
      s.log.info(`started agent ${job.id} "${job.title}" in ${job.worktree ?? job.cwd}`);
      await s.agents.refresh(job.id);
      const node = s.tree.agent(job.id);
      if (node) void s.treeView.reveal(node, { select: true, focus: false }).then(undefined, () => undefined);
      if (given.openTerminal ?? openTerminalOnStart()) {
        progress.report({ message: vscode.l10n.t('opening its terminal') });
        s.terminals.attach(job.id, job.title);
      }
      return job;
    });
  });
}

async function ask(s: PaddockServices, given: StartAgentOptions): Promise<(StartAgentOptions & { repo: string }) | undefined> {
  const repo = given.repo ?? (await pickRepo(s));
  if (!repo) return undefined;
  if (given.command) return { ...given, repo };

  const settings = coordinatorSettings();
  // The approvals step is shown only for a profile that has an auto-approve flag.
  const hasApprovalStep = (name: string | undefined): boolean => {
    if (name === undefined || given.autoApprove !== undefined) return false;
    try {
      return resolveProfile(name, settings.profiles, process.env).autoApprove !== null;
    } catch {
      return false; // an unknown or invalid profile: the start refuses it with the reason
    }
  };
  let profile = given.profile;
  let total = 3 + Number(hasApprovalStep(profile ?? settings.defaultProfile));
  let step = 1;
  const title = () => vscode.l10n.t('Start Agent ({0}/{1})', step++, total);
  if (!profile) {
    const names = profileNames(settings.profiles, process.env);
    const items = names.map((name) => {
      const p = resolveProfile(name, settings.profiles, process.env);
      return {
        label: name,
        description: [p.command, ...(p.args ?? [])].join(' '),
        detail: BUILTIN_DESCRIPTIONS[name],
        picked: name === settings.defaultProfile,
      };
    });
    items.sort((a, b) => Number(b.picked) - Number(a.picked));
    const chosen = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Which agent should run?'), title: title() });
    if (!chosen) return undefined;
    profile = chosen.label;
    total = 3 + Number(hasApprovalStep(profile));
  }

  let autoApprove = given.autoApprove;
  const chosenProfile: string = profile;
  if (hasApprovalStep(chosenProfile)) {
    autoApprove = await askApprovals(resolveProfile(chosenProfile, settings.profiles, process.env).autoApprove!, title());
    if (autoApprove === undefined) return undefined;
  }

  let prompt = given.prompt;
  if (prompt === undefined) {
    prompt = await vscode.window.showInputBox({
      title: title(),
      prompt: vscode.l10n.t('What should the agent do? This is its prompt and the agent\'s title.'),
      placeHolder: vscode.l10n.t('e.g. Fix the flaky date test in src/util'),
      ignoreFocusOut: true,
      // The same sentence the coordinator would refuse it with, before the person presses Enter.
      validateInput: (v) => (v.length > MAX_PROMPT_CHARS ? `The prompt is ${v.length} characters; the limit is ${MAX_PROMPT_CHARS}.` : undefined),
    });
    if (prompt === undefined) return undefined;
  }

  let base = given.base;
  if (base === undefined) {
    base = await vscode.window.showInputBox({
      title: title(),
      prompt: vscode.l10n.t('Branch or commit to start from (empty: the current HEAD).'),
      placeHolder: 'HEAD',
      ignoreFocusOut: true,
    });
    if (base === undefined) return undefined;
  }
  return { ...given, repo, profile, autoApprove, prompt: prompt || undefined, title: given.title ?? (prompt || undefined), base: base.trim() || undefined };
}

/** Asks before acting (the default, first) or auto-approve, with its risk in one line; undefined: cancelled. */
async function askApprovals(flags: readonly string[], title: string): Promise<boolean | undefined> {
  const items = [
    { label: vscode.l10n.t('Ask before acting'), description: vscode.l10n.t('default'), detail: vscode.l10n.t('The agent asks you before it edits files or runs commands.'), autoApprove: false },
    {
      label: vscode.l10n.t('Auto-approve'),
      description: flags.join(' '),
      detail: vscode.l10n.t('Risk: it edits files and runs any command without asking, including what a file or web page it reads tells it to.'),
      autoApprove: true,
    },
  ];
  const chosen = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Should the agent ask before acting?'), title });
  return chosen?.autoApprove;
}

async function pickRepo(s: PaddockServices): Promise<string | undefined> {
  const repos = await s.workspaceRepos();
  if (repos.length === 1) return repos[0];
  if (repos.length === 0) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Paddock needs a git repository: open a folder that is in one.'));
    return undefined;
  }
  const chosen = await vscode.window.showQuickPick(
    repos.map((r) => ({ label: path.basename(r), description: r, repo: r })),
    { placeHolder: vscode.l10n.t('Which repository?') },
  );
  return chosen?.repo;
}

export type { JobRecord };
