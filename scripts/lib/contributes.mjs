// Generates package.json's `contributes` (kept in one place because menus and
// commands cross-reference each other). Run: node scripts/lib/contributes.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const cmd = (command, title, icon, extra = {}) => ({ command, title, category: 'Paddock', icon: `$(${icon})`, ...extra });

const commands = [
  cmd('paddock.startAgent', 'Start Agent', 'add'),
  cmd('paddock.attach', 'Attach', 'terminal'),
  cmd('paddock.attachReadOnly', 'Attach Read-Only', 'eye'),
  cmd('paddock.sendPrompt', 'Send Prompt', 'send'),
  cmd('paddock.stop', 'Stop', 'debug-stop'),
  cmd('paddock.retry', 'Retry', 'debug-restart'),
  cmd('paddock.cleanUp', 'Clean Up', 'trash'),
  cmd('paddock.retryCleanup', 'Retry Cleanup Now', 'sync'),
  cmd('paddock.stopAll', 'Stop All Agents', 'stop-circle'),
  cmd('paddock.cleanUpFinished', 'Clean Up Finished Agents', 'clear-all'),
  cmd('paddock.refresh', 'Refresh', 'refresh'),
  cmd('paddock.openWorktree', 'Open Worktree in New Window', 'folder-opened'),
  cmd('paddock.openChanges', 'Open All Changes', 'diff-multiple'),
  cmd('paddock.copyBranch', 'Copy Branch Name', 'copy'),
  cmd('paddock.showLog', 'Show Agent Log', 'output'),
  cmd('paddock.revealPatch', 'Reveal Evidence Patch', 'file-code'),
  cmd('paddock.showOutput', 'Show Paddock Output', 'output'),
  cmd('paddock.openFileDiff', 'Open Changes', 'diff'),
];

// Commands that act on a tree item only: hidden from the palette.
const itemOnly = ['paddock.openFileDiff', 'paddock.openWorktree', 'paddock.copyBranch', 'paddock.revealPatch'];

const has = (cap) => `view == paddock.agents && viewItem =~ /^agent:[a-z]+:.*\\b${cap}\\b/`;

const menus = {
  commandPalette: itemOnly.map((command) => ({ command, when: 'false' })),
  'view/title': [
    { command: 'paddock.startAgent', when: 'view == paddock.agents', group: 'navigation@1' },
    { command: 'paddock.refresh', when: 'view == paddock.agents', group: 'navigation@2' },
    { command: 'paddock.stopAll', when: 'view == paddock.agents', group: 'navigation@3' },
    { command: 'paddock.cleanUpFinished', when: 'view == paddock.agents', group: 'navigation@4' },
    { command: 'paddock.showOutput', when: 'view == paddock.agents', group: 'z_more@1' },
  ],
  'view/item/context': [
    { command: 'paddock.attach', when: has('attach'), group: 'inline@1' },
    { command: 'paddock.stop', when: has('stop'), group: 'inline@2' },
    { command: 'paddock.retry', when: has('retry'), group: 'inline@3' },
    { command: 'paddock.cleanUp', when: has('cleanup'), group: 'inline@4' },
    { command: 'paddock.retryCleanup', when: has('retryCleanup'), group: 'inline@5' },

    { command: 'paddock.attach', when: has('attach'), group: '1_terminal@1' },
    { command: 'paddock.attachReadOnly', when: has('attach'), group: '1_terminal@2' },
    { command: 'paddock.sendPrompt', when: has('send'), group: '1_terminal@3' },
    { command: 'paddock.showLog', when: has('log'), group: '1_terminal@4' },
    { command: 'paddock.openWorktree', when: has('worktree'), group: '2_workspace@1' },
    { command: 'paddock.openChanges', when: has('worktree'), group: '2_workspace@2' },
    { command: 'paddock.copyBranch', when: has('branch'), group: '2_workspace@3' },
    { command: 'paddock.revealPatch', when: has('patch'), group: '2_workspace@4' },
    { command: 'paddock.stop', when: has('stop'), group: '3_lifecycle@1' },
    { command: 'paddock.retry', when: has('retry'), group: '3_lifecycle@2' },
    { command: 'paddock.cleanUp', when: has('cleanup'), group: '3_lifecycle@3' },
    { command: 'paddock.retryCleanup', when: has('retryCleanup'), group: '3_lifecycle@4' },
  ],
  'terminal/title/context': [],
};

const configuration = {
  title: 'Paddock',
  properties: {
    'paddock.maxConcurrent': {
      type: 'integer', default: 4, minimum: 1, maximum: 64,
      markdownDescription: 'How many agents may run at once. Further agents wait as `queued` and start in order when a slot frees. Agents whose **cleanup is incomplete** keep their slot until the cleanup finishes.',
    },
    'paddock.profiles': {
      type: 'object', default: {},
      markdownDescription: 'Agent profiles by name, added to (or overriding) the built-in `claude`, `codex`, `aider` and `shell`. Each: `command`, `args` (use `{prompt}` for the prompt), `resumeArgs`, `env`, `secretEnv` (names whose values are redacted), `waitingPattern` (a regular expression matched against the screen), `idleSeconds`.',
      additionalProperties: {
        type: 'object',
        properties: {
          command: { type: 'string', markdownDescription: 'Program to run (looked up on `PATH`).' },
          args: { type: 'array', items: { type: 'string' }, markdownDescription: 'Arguments; `{prompt}` is replaced by the prompt.' },
          resumeArgs: { type: 'array', items: { type: 'string' }, markdownDescription: 'Arguments used instead of `args` when retrying in the same worktree.' },
          env: { type: 'object', additionalProperties: { type: 'string' } },
          secretEnv: { type: 'array', items: { type: 'string' }, markdownDescription: 'Names of environment variables whose values are never written to disk.' },
          waitingPattern: { type: 'string', markdownDescription: 'A regular expression; when it matches the visible screen the agent shows as *waiting for you*.' },
          idleSeconds: { type: 'number', markdownDescription: 'Seconds without output after which the agent shows as *waiting for you*.' },
        },
        required: ['command'],
      },
    },
    'paddock.defaultProfile': {
      type: 'string', default: 'claude',
      markdownDescription: 'The profile **Start Agent** preselects, e.g. `claude`, `codex`, `aider`, `shell` or one of `#paddock.profiles#`.',
    },
    'paddock.worktreeRoot': {
      type: 'string', default: '',
      markdownDescription: 'Folder for agents\' worktrees. Empty: `<repo-parent>/<repo-name>.worktrees/<id>` next to the repository.',
    },
    'paddock.storePath': {
      type: 'string', default: '',
      markdownDescription: 'The job store shared with the `paddock` CLI. Empty: `$PADDOCK_HOME`, else `$XDG_STATE_HOME/paddock` (`~/.local/state/paddock`).',
    },
    'paddock.stopGraceSeconds': {
      type: 'number', default: 10, minimum: 0, maximum: 600,
      markdownDescription: 'Seconds an agent gets to exit after **Stop** (SIGTERM) before it and its whole process session are killed (SIGKILL).',
    },
    'paddock.openTerminalOnStart': {
      type: 'boolean', default: true,
      markdownDescription: 'Open an attached terminal when an agent starts.',
    },
    'paddock.notifications.waiting': {
      type: 'boolean', default: true,
      markdownDescription: 'Notify when an agent is **waiting for you**.',
    },
    'paddock.notifications.failed': {
      type: 'boolean', default: true,
      markdownDescription: 'Notify when an agent **fails** or is orphaned.',
    },
    'paddock.notifications.cleanup': {
      type: 'boolean', default: true,
      markdownDescription: 'Notify when a cleanup **needs attention** or failed cleanups block capacity.',
    },
  },
};

const contributes = {
  viewsContainers: {
    activitybar: [{ id: 'paddock', title: 'Paddock', icon: 'media/paddock.svg' }],
  },
  views: {
    paddock: [{ id: 'paddock.agents', name: 'Agents', icon: 'media/paddock.svg', contextualTitle: 'Paddock' }],
  },
  viewsWelcome: [
    {
      view: 'paddock.agents',
      contents: 'No agents yet. Each agent runs in the background in its own git worktree and branch, and keeps running when the window reloads.\n[Start Agent](command:paddock.startAgent)\nLearn more in the [walkthrough](command:workbench.action.openWalkthrough?%22paddock.paddock%23paddock.gettingStarted%22).',
    },
  ],
  commands,
  menus,
  configuration,
  terminal: {
    profiles: [{ id: 'paddock.agentTerminal', title: 'Paddock Agent', icon: '$(hubot)' }],
  },
  walkthroughs: [
    {
      id: 'paddock.gettingStarted',
      title: 'Get started with Paddock',
      description: 'Run coding agents in the background, each in its own worktree.',
      steps: [
        {
          id: 'start', title: 'Start an agent',
          description: 'Pick a profile and give it a prompt. It gets its own worktree and branch `paddock/<id>`.\n[Start Agent](command:paddock.startAgent)',
          media: { markdown: 'media/walkthrough/start.md' },
          completionEvents: ['onCommand:paddock.startAgent'],
        },
        {
          id: 'attach', title: 'Watch and talk to it',
          description: 'Attach a terminal to see its live screen and type to it. Closing the terminal detaches; the agent keeps running.\n[Show Agents](command:paddock.agents.focus)',
          media: { markdown: 'media/walkthrough/attach.md' },
          completionEvents: ['onCommand:paddock.attach'],
        },
        {
          id: 'cleanup', title: 'Clean up without losing work',
          description: 'Clean Up saves the worktree\'s full state to `refs/paddock/snapshots/<id>` and a patch before it removes anything, and keeps branches with unmerged commits.',
          media: { markdown: 'media/walkthrough/cleanup.md' },
          completionEvents: ['onCommand:paddock.cleanUp'],
        },
      ],
    },
  ],
};

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
pkg.contributes = contributes;
writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
console.log('package.json contributes updated');
