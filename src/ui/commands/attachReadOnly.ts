/** Paddock: Attach Read-Only — watch the agent's screen without typing into it. */
import type * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { attachTerminals } from './attach';
import { registerCommand } from './command';

export function registerAttachReadOnly(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.attachReadOnly', (...args: unknown[]) => attachTerminals(s, args, true));
}
