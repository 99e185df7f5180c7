import * as vscode from 'vscode';
import type { PaddockApi } from '../../src/extension';

export function paddockExtension(): vscode.Extension<PaddockApi> {
  const ext = vscode.extensions.getExtension<PaddockApi>('paddock.paddock');
  if (!ext) throw new Error('Paddock extension (paddock.paddock) is not loaded in this host');
  return ext;
}
