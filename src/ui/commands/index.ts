import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerAttach } from './attach';
import { registerCleanUp } from './cleanUp';
import { registerRetry } from './retry';
import { registerSendPrompt } from './sendPrompt';
import { registerStartAgent } from './startAgent';
import { registerStop } from './stop';
import { registerStopAll } from './stopAll';
import { registerViewCommands } from './viewCommands';
import { registerWorkspaceCommands } from './workspaceCommands';

export function registerCommands(s: PaddockServices): vscode.Disposable[] {
  return [
    registerStartAgent(s),
    ...registerAttach(s),
    registerSendPrompt(s),
    registerStop(s),
    registerRetry(s),
    ...registerCleanUp(s),
    registerStopAll(s),
    ...registerWorkspaceCommands(s),
    ...registerViewCommands(s),
  ];
}
