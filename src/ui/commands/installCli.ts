/**
 * Paddock: Install 'paddock' Command in PATH — a thin adapter over
 * core/launcher/installCli: asks where when both places are writable, and says
 * where it wrote (or why it could not). A folder passed as argument (tests,
 * other extensions) is used as is.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { installCli, installTargets, isOnPath, type InstallTarget } from '../../core/launcher/installCli';
import { storePathSetting } from '../config';
import type { PaddockServices } from '../services';
import { registerCommand } from './command';

function tildify(dir: string): string {
  const home = os.homedir();
  return dir.startsWith(home + path.sep) ? `~${dir.slice(home.length)}` : dir;
}

async function chooseTarget(): Promise<InstallTarget | undefined> {
  const targets = installTargets(os.homedir(), process.env);
  const writable = targets.filter((t) => t.writable);
  if (writable.length === 0) {
    const [system, personal] = targets.map((t) => tildify(t.dir));
    void vscode.window.showErrorMessage(
      vscode.l10n.t("Paddock cannot install the 'paddock' command: neither {0} nor {1} can be written; make one of them writable for you and run this command again.", system, personal),
    );
    return undefined;
  }
  if (writable.length === 1) return writable[0];
  const items = writable.map((target) => ({
    label: tildify(target.dir),
    description: target.onPath ? vscode.l10n.t('on PATH') : vscode.l10n.t('not on PATH yet'),
    detail: target.dir.startsWith(os.homedir()) ? vscode.l10n.t('For you only') : vscode.l10n.t('For every user of this machine'),
    target,
  }));
  const chosen = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t("Where should the 'paddock' command go?") });
  return chosen?.target;
}

export function registerInstallCli(s: PaddockServices): vscode.Disposable {
  return registerCommand(s, 'paddock.installCli', async (folder?: unknown) => {
    const target = typeof folder === 'string' ? { dir: folder, onPath: isOnPath(folder, process.env) } : await chooseTarget();
    if (!target) return undefined;
    const written = installCli({
      dir: target.dir,
      execPath: process.execPath,
      cliScript: path.join(s.context.extensionPath, 'dist', 'cli.js'),
      home: storePathSetting(),
    });
    s.log.info(`installed the paddock command: ${written}`);
    const message = target.onPath
      ? vscode.l10n.t("The 'paddock' command is installed in {0}. Open a new terminal to use it.", tildify(target.dir))
      : vscode.l10n.t("The 'paddock' command is installed in {0}, which is not on your PATH yet: add it to PATH in your shell's profile.", tildify(target.dir));
    void vscode.window.showInformationMessage(message);
    return written;
  });
}
