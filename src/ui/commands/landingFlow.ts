/**
 * What the landing commands share: the two decisions a landing needs (a
 * running agent; uncommitted work in its worktree), asked in a modal, or taken
 * from an options object (tests, other commands); a conflict shown with
 * "Resolve in Agent's Worktree"; and what follows a landing
 * (`paddock.cleanUpAfterLanding`: ask, always or never).
 */
import * as vscode from 'vscode';
import { printable } from '../../core/common/printable';
import { LandingConflict } from '../../core/git';
import { mayHaveUncommittedWork, type LandingChoices } from '../../core/operations/landingPrep';
import { canCleanUp, canCleanUpUnasked, isLive } from '../../core/operations/rules';
import type { JobRecord } from '../../core/store/schema';
import { cleanUpAfterLanding } from '../config';
import type { PaddockServices } from '../services';
import { optionsArg, type CommandFailure } from './command';

/** Options a caller may pass instead of being asked (every field optional). */
export interface LandingArgs extends LandingChoices {
  strategy?: 'merge' | 'squash' | 'rebase' | 'ff-only';
  /** A plain merge only, as `paddock merge --ff` / `--no-ff`: a fast-forward where it can, or always a merge commit, over git's merge.ff. */
  fastForward?: 'allow' | 'never';
  /** Skip the confirmation (the caller has asked). */
  confirmed?: boolean;
  into?: string;
  message?: string;
  title?: string;
  /** What to do after landing, instead of the setting. */
  cleanUp?: 'ask' | 'always' | 'never';
}

export function landingArgs(args: unknown[]): LandingArgs {
  // Never a tree node (it has `job`), whatever else it carries.
  return optionsArg(args, ['confirmed', 'strategy', 'fastForward', 'running', 'uncommitted', 'cleanUp'], (o) => 'job' in o);
}

/** A modal question with two answers; undefined when the person cancels. */
function askModal(message: string, detail: string, first: string, second: string): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, first, second);
}

/** Asks what a landing needs decided; undefined when the person cancels. */
export async function askLandingChoices(job: JobRecord, given: LandingChoices, opts: { uncommitted: boolean } = { uncommitted: true }): Promise<LandingChoices | undefined> {
  const choices: LandingChoices = { ...given };
  if (choices.running === undefined && isLive(job)) {
    const stop = vscode.l10n.t('Stop It First');
    const choice = await askModal(
      vscode.l10n.t('"{0}" is still running.', printable(job.title)),
      vscode.l10n.t('Stop it first (its work so far is kept in its worktree), or land what it has now and let it go on.'),
      stop,
      vscode.l10n.t('Land What Is There Now'),
    );
    if (!choice) return undefined;
    choices.running = choice === stop ? 'stop' : 'as-is';
  }
  if (opts.uncommitted && choices.uncommitted === undefined && (await mayHaveUncommittedWork(job))) {
    const commit = vscode.l10n.t('Commit Them First');
    const choice = await askModal(
      vscode.l10n.t('"{0}" has uncommitted changes in its worktree.', printable(job.title)),
      vscode.l10n.t('Commit them on its branch first (the message is its title and prompt), or land only its commits and leave the changes in its worktree.'),
      commit,
      vscode.l10n.t('Land Only the Commits'),
    );
    if (!choice) return undefined;
    choices.uncommitted = choice === commit ? 'commit' : 'commits-only';
  }
  return choices;
}

/**
 * A conflict is not a plain error: it lists the files and offers to resolve
 * them in the agent's worktree. Returns the command's failure value.
 */
export function showLandingFailure(s: PaddockServices, command: string, job: JobRecord, err: unknown): CommandFailure | undefined {
  if (!(err instanceof LandingConflict)) return undefined;
  const message = printable(err.message);
  s.log.error(`${command}: ${message}`);
  const resolve = vscode.l10n.t("Resolve in Agent's Worktree");
  void vscode.window.showErrorMessage(message, resolve).then((choice) => {
    if (choice === resolve) void vscode.commands.executeCommand('paddock.resolveInWorktree', job.id);
  });
  return { failed: true, command, message, files: [...err.files] } as CommandFailure & { files: string[] };
}

/** After a landing: clean the agent up, offer it, or not (`paddock.cleanUpAfterLanding`). */
export async function afterLanding(s: PaddockServices, job: JobRecord, said: string, how: LandingArgs['cleanUp']): Promise<void> {
  const mode = how ?? cleanUpAfterLanding();
  s.log.info(said);
  if (!canCleanUp(job) || mode === 'never') {
    void vscode.window.showInformationMessage(printable(said));
    return;
  }
  // An agent landed while it runs on is offered Clean Up, as with "ask": "always" must not stop it.
  if (mode === 'always' && canCleanUpUnasked(job)) {
    void vscode.window.showInformationMessage(printable(said));
    await vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
    return;
  }
  const cleanUp = vscode.l10n.t('Clean Up');
  void vscode.window.showInformationMessage(printable(said), cleanUp).then((choice) => {
    if (choice === cleanUp) void vscode.commands.executeCommand('paddock.cleanUp', job.id, { confirmed: true });
  });
}
