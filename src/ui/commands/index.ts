import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerAttach } from './attach';
import { registerAttachReadOnly } from './attachReadOnly';
import { registerCleanUp } from './cleanUp';
import { registerCleanUpAnyway } from './cleanUpAnyway';
import { registerCleanUpFinished } from './cleanUpFinished';
import { registerCopyBranch } from './copyBranch';
import { registerInstallCli } from './installCli';
import { registerOpenChanges } from './openChanges';
import { registerOpenFileDiff } from './openFileDiff';
import { registerOpenWorktree } from './openWorktree';
import { registerRefresh } from './refresh';
import { registerRestore } from './restore';
import { registerRetry } from './retry';
import { registerRetryCleanup } from './retryCleanup';
import { registerRevealPatch } from './revealPatch';
import { registerSendPrompt } from './sendPrompt';
import { registerShowLog } from './showLog';
import { registerShowCleanedAgents } from './showCleanedAgents';
import { registerHideCleanedAgents } from './hideCleanedAgents';
import { registerSendReview } from './sendReview';
import { registerAddReviewComment } from './addReviewComment';
import { registerDeleteReviewComment } from './deleteReviewComment';
import { registerShowOutput } from './showOutput';
import { registerStartAgent } from './startAgent';
import { registerStartDemoAgents } from './startDemoAgents';
import { registerStop } from './stop';
import { registerStopAll } from './stopAll';
import { registerMerge } from './merge';
import { registerUpdate } from './update';
import { registerResolveInWorktree } from './resolveInWorktree';
import { registerApply } from './apply';
import { registerCreatePullRequest } from './createPullRequest';
import { registerForget } from './forget';
import { registerRunCheck } from './runCheck';
import { registerStopGroup } from './stopGroup';
import { registerSendPromptToGroup } from './sendPromptToGroup';
import { registerCompareAttempts } from './compareAttempts';
import { registerDiffAttempts } from './diffAttempts';
import { registerKeepAttempt } from './keepAttempt';

/** Every `paddock.*` command, one file each. */
const REGISTRATIONS: ((s: PaddockServices) => vscode.Disposable)[] = [
  registerStartAgent,
  registerStartDemoAgents,
  registerAttach,
  registerAttachReadOnly,
  registerSendPrompt,
  registerStop,
  registerRetry,
  registerCleanUp,
  registerRetryCleanup,
  registerCleanUpAnyway,
  registerRestore,
  registerCleanUpFinished,
  registerStopAll,
  registerRefresh,
  registerOpenWorktree,
  registerOpenChanges,
  registerOpenFileDiff,
  registerCopyBranch,
  registerShowLog,
  registerRevealPatch,
  registerShowOutput,
  registerInstallCli,
  registerShowCleanedAgents,
  registerHideCleanedAgents,
  registerSendReview,
  registerAddReviewComment,
  registerDeleteReviewComment,
  registerMerge,
  registerUpdate,
  registerResolveInWorktree,
  registerApply,
  registerCreatePullRequest,
  registerForget,
  registerRunCheck,
  registerStopGroup,
  registerSendPromptToGroup,
  registerCompareAttempts,
  registerDiffAttempts,
  registerKeepAttempt,
];

export function registerCommands(s: PaddockServices): vscode.Disposable[] {
  return REGISTRATIONS.map((register) => register(s));
}
