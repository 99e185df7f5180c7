/**
 * Paddock: Start Agent — profile(s), how many attempts, prompt, repository
 * (multi-root) and optional base, then the agent appears at once and (by
 * setting) its terminal opens. Several attempts (or several profiles picked)
 * start as one group, profiles dealt round-robin over the attempts.
 * Programmatic callers may pass the answers as one options object.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MAX_ATTEMPTS } from '../../core/attempts/attemptPlan';
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
  /** How many attempts (default 1); more than one starts a group. */
  attempts?: number;
  /** Profiles dealt over the attempts, in order (several picked at once). */
  profiles?: string[];
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
    if ((answers.attempts ?? 1) > 1) return startAttempts(s, answers);
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

  const settings = coordinatorSettings(s.trustedFolders);
  // The approvals step is shown only when every profile picked has an auto-approve flag.
  const approvalFlags = (names: readonly string[]): readonly string[] | null => {
    if (given.autoApprove !== undefined || names.length === 0) return null;
    try {
      const flags = names.map((name) => resolveProfile(name, settings.profiles, process.env).autoApprove);
      return flags.every((f) => f !== null) ? flags[0] : null;
    } catch {
      return null; // an unknown or invalid profile: the start refuses it with the reason
    }
  };
  let profile = given.profile;
  let profiles = given.profiles ?? (profile ? [profile] : undefined);
  // Steps: profile, attempts, approvals (when offered), prompt, base; the count follows the answers.
  let total = 4 + Number(approvalFlags(profiles ?? (settings.defaultProfile ? [settings.defaultProfile] : [])) !== null);
  let step = 1;
  const title = () => vscode.l10n.t('Start Agent ({0}/{1})', step++, total);
  if (!profiles) {
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
    // One profile is one pick and Enter; "Several agents at once…" opens a multi-select of the same list.
    const several = { label: vscode.l10n.t('$(layers) Several agents at once…'), description: vscode.l10n.t('e.g. claude and codex on the same task'), detail: undefined, picked: false };
    const pickTitle = title();
    const chosen = await vscode.window.showQuickPick([...items, several], { placeHolder: vscode.l10n.t('Which agent should run?'), title: pickTitle });
    if (!chosen) return undefined;
    if (chosen === several) {
      const many = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Pick the agents to run the task with'), title: pickTitle, canPickMany: true });
      if (!many || many.length === 0) return undefined;
      profiles = many.map((c) => c.label);
    } else {
      profiles = [chosen.label];
    }
    total = 4 + Number(approvalFlags(profiles) !== null);
  } else {
    step++;
  }
  profile = profiles[0];

  // A caller that named its profile asked for one agent unless it says otherwise.
  let attempts = given.attempts ?? (given.profile || given.profiles ? Math.max(1, given.profiles?.length ?? 1) : undefined);
  if (attempts === undefined) {
    const least = profiles.length;
    const answer = await vscode.window.showInputBox({
      title: title(),
      prompt:
        least > 1
          ? vscode.l10n.t('How many attempts? The profiles take turns: {0}, {1}, …', profiles[0], profiles[1])
          : vscode.l10n.t('How many attempts at this task? Each runs in its own worktree; more than one can be checked and compared.'),
      value: String(least),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const n = Number(v);
        if (!/^\d+$/.test(v.trim()) || n < 1 || n > MAX_ATTEMPTS) return vscode.l10n.t('A whole number from 1 to {0}.', MAX_ATTEMPTS);
        return n < least ? vscode.l10n.t('At least {0}: one attempt per profile picked.', least) : undefined;
      },
    });
    if (answer === undefined) return undefined;
    attempts = Number(answer.trim());
  } else {
    step++;
  }

  let autoApprove = given.autoApprove;
  const flags = approvalFlags(profiles);
  if (flags !== null) {
    autoApprove = await askApprovals(flags, title());
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
  return { ...given, repo, profile, profiles, attempts, autoApprove, prompt: prompt || undefined, title: given.title ?? (prompt || undefined), base: base.trim() || undefined };
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

/** Several attempts at once: one group, shown as one node; terminals open only when asked (N at once is a lot). */
async function startAttempts(s: PaddockServices, answers: StartAgentOptions & { repo: string }): Promise<JobRecord[]> {
  const title = vscode.l10n.t('Paddock: starting {0} attempts…', answers.attempts!);
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, async () => {
    const { profile: _one, profiles, attempts, ...request } = answers;
    const result = await s.coordinator.startAttempts(request, attempts!, profiles ?? []);
    s.log.info(`started ${result.jobs.length} attempts: ${result.jobs.map((j) => `${j.id} (${j.profile ?? j.command[0]})`).join(', ')}`);
    for (const f of result.failed) s.log.error(`attempt ${f.index} failed to start: ${f.reason}`);
    const first = result.jobs[0];
    if (first?.group) {
      await s.agents.refresh(first.id);
      const node = s.tree.group(first.group.id);
      if (node) void s.treeView.reveal(node, { select: true, focus: false, expand: true }).then(undefined, () => undefined);
    }
    if (answers.openTerminal) for (const job of result.jobs) s.terminals.attach(job.id, job.title);
    if (result.failed.length) void vscode.window.showWarningMessage(vscode.l10n.t('{0} of {1} attempts failed to start: {2}', result.failed.length, attempts!, result.failed[0].reason));
    return result.jobs;
  });
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
