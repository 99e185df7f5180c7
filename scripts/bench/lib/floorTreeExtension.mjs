// The floor for the Agents view figures: a minimal extension whose view has
// rows of the same shape as Paddock's (label, description, coloured icon,
// collapsible, an id, two inline actions) and the same toggle, but answers
// from an array built once. What it takes is the workbench's own cost of
// the change (command round trip, items over the connection, the tree's
// nodes, drawing the rows), which no extension can go below.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MAIN = `
const vscode = require('vscode');
exports.activate = (context) => {
  const shown = Number(process.env.FLOOR_SHOWN), total = Number(process.env.FLOOR_TOTAL);
  const rows = [];
  for (let i = 0; i < shown; i++) rows.push({ id: 'e' + i, label: 'Ended task number ' + (i + 1), description: 'completed', icon: ['pass', 'testing.iconPassed'] });
  for (let i = 0; i < total - shown; i++) rows.push({ id: 'c' + i, label: 'Cleaned task number ' + (i + 1), description: 'cleaned', icon: ['archive', 'disabledForeground'] });
  let showAll = false;
  const changed = new vscode.EventEmitter();
  const provider = {
    onDidChangeTreeData: changed.event,
    getChildren: (el) => (el ? [] : showAll ? rows : rows.slice(0, shown)),
    getTreeItem: (r) => {
      const item = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = r.id;
      item.description = r.description;
      item.iconPath = new vscode.ThemeIcon(r.icon[0], new vscode.ThemeColor(r.icon[1]));
      item.contextValue = 'row';
      return item;
    },
  };
  const toggle = (show) => { showAll = show; void vscode.commands.executeCommand('setContext', 'floor.showingCleaned', show); changed.fire(undefined); };
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('floor.rows', provider),
    vscode.commands.registerCommand('floor.show', () => toggle(true)),
    vscode.commands.registerCommand('floor.hide', () => toggle(false)),
    vscode.commands.registerCommand('floor.refresh', () => changed.fire(undefined)),
    vscode.commands.registerCommand('floor.a', () => undefined),
    vscode.commands.registerCommand('floor.b', () => undefined),
  );
};
`;

const MANIFEST = {
  name: 'floor-tree',
  publisher: 'paddock-bench',
  version: '0.0.1',
  engines: { vscode: '^1.100.0' },
  main: './extension.js',
  activationEvents: ['onView:floor.rows'],
  contributes: {
    viewsContainers: { activitybar: [{ id: 'floor', title: 'Floor Tree', icon: '$(list-tree)' }] },
    views: { floor: [{ id: 'floor.rows', name: 'Rows' }] },
    commands: [
      { command: 'floor.show', title: 'Show Cleaned Agents', icon: '$(eye)' },
      { command: 'floor.hide', title: 'Hide Cleaned Agents', icon: '$(eye-closed)' },
      { command: 'floor.refresh', title: 'Refresh', icon: '$(refresh)' },
      { command: 'floor.a', title: 'Retry', icon: '$(debug-restart)' },
      { command: 'floor.b', title: 'Clean Up', icon: '$(trash)' },
    ],
    menus: {
      'view/title': [
        { command: 'floor.refresh', when: 'view == floor.rows', group: 'navigation@2' },
        { command: 'floor.show', when: 'view == floor.rows && !floor.showingCleaned', group: 'z_more@2' },
        { command: 'floor.hide', when: 'view == floor.rows && floor.showingCleaned', group: 'z_more@2' },
      ],
      'view/item/context': [
        { command: 'floor.a', when: 'view == floor.rows && viewItem == row', group: 'inline@1' },
        { command: 'floor.b', when: 'view == floor.rows && viewItem == row', group: 'inline@2' },
      ],
    },
  },
};

/** Writes the extension into `dir` and returns its path; FLOOR_SHOWN and FLOOR_TOTAL in the server's environment size it. */
export function writeFloorTreeExtension(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(MANIFEST, null, 2));
  writeFileSync(join(dir, 'extension.js'), MAIN);
  return dir;
}
