/**
 * How the extension runs workers: with the host's own runtime (process.execPath,
 * run as Node via ELECTRON_RUN_AS_NODE in desktop VS Code) and VS Code's own
 * node-pty, which is built for that runtime. The extension host itself never
 * loads node-pty.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface WorkerRuntime {
  execPath: string;
  workerScript: string;
  nodePtyPath: string | undefined;
}

/**
 * VS Code has moved its node-pty between releases: look in each known place.
 * `appRoot` is `<app>/resources/app` on Linux and `<Code.app>/Contents/Resources/app`
 * on macOS, so the first two candidates cover both (`node_modules`, and
 * `node_modules.asar.unpacked` beside an asar archive). When none loads, the
 * worker fails the agent with one sentence naming the runtime (core/worker/ptyHost).
 */
export function findNodePty(appRoot: string, extensionPath: string): string | undefined {
  const candidates = [
    path.join(appRoot, 'node_modules', 'node-pty'),
    path.join(appRoot, 'node_modules.asar.unpacked', 'node-pty'),
    path.join(appRoot, '..', 'node_modules', 'node-pty'),
    // Development: the project's own dependency.
    path.join(extensionPath, 'node_modules', 'node-pty'),
  ];
  return candidates.find((c) => existsSync(path.join(c, 'package.json')));
}

export function workerRuntime(context: vscode.ExtensionContext): WorkerRuntime {
  return {
    execPath: process.execPath,
    workerScript: path.join(context.extensionPath, 'dist', 'worker.js'),
    nodePtyPath: findNodePty(vscode.env.appRoot, context.extensionPath),
  };
}
