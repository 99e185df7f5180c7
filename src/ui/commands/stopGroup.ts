/** Paddock: Stop All in Group — stops every attempt of a group that has not ended. */
import * as vscode from 'vscode';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';
import { targetGroup } from './groupTarget';

export function registerStopGroup(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.stopGroup', async (...args: unknown[]) => {
    const group = await targetGroup(s, args, vscode.l10n.t('Stop the attempts of which group?'));
    if (!group) return undefined;
    const report = await s.coordinator.stopGroup(group.id);
    if (report.notStopped.length) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} attempt(s) could not be proven stopped: {1}', report.notStopped.length, report.notStopped.map((n) => `${n.id} (${n.reason})`).join('; ')));
    }
    return report;
  });
}
