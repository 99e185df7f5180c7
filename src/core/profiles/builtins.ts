/** The profiles Paddock knows without configuration. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Profile } from './profile';

/**
 * resources/demo-agent.sh of this installation: beside dist/ in the extension
 * and the npm package, a few folders up in the unbundled test build.
 */
export function demoAgentScript(): string {
  for (let dir = __dirname, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'resources', 'demo-agent.sh');
    if (existsSync(candidate)) return candidate;
  }
  return path.join(__dirname, '..', 'resources', 'demo-agent.sh');
}

/** What a profile is without saying otherwise: no arguments, no resume, no waiting detection. */
export const PROFILE_DEFAULTS: Omit<Profile, 'command'> = {
  args: [],
  resumeArgs: null,
  env: {},
  secretEnv: [],
  waitingPattern: null,
  idleSeconds: null,
  signalArgs: [],
  autoApprove: null,
};

/**
 * Claude Code's hooks, passed inline with `--settings` (never written into the
 * person's own settings files): it asks (Notification) or ends its turn (Stop)
 * → waiting; the person submits a prompt or a tool runs → running.
 */
export const CLAUDE_SIGNAL_SETTINGS = JSON.stringify({
  hooks: {
    Notification: [{ hooks: [{ type: 'command', command: 'paddock signal waiting' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'paddock signal waiting' }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'paddock signal running' }] }],
    PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'paddock signal running' }] }],
  },
});

/** Codex runs its `notify` program (with a JSON argument) when a turn completes. */
export const CODEX_NOTIFY = 'notify=["paddock","signal","waiting"]';

export function builtinProfiles(env: NodeJS.ProcessEnv): Record<string, Profile> {
  return {
    claude: {
      ...PROFILE_DEFAULTS,
      command: 'claude',
      // `--` ends its options: a prompt starting with '-' stays the prompt.
      args: ['--', '{prompt}'],
      // Continues the most recent conversation in this directory, i.e. this worktree's (with a new prompt when given).
      resumeArgs: ['--continue', '--', '{prompt}'],
      secretEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
      // The quiet-screen guess stays as the fallback for a hook that does not fire.
      idleSeconds: 30,
      signalArgs: ['--settings', CLAUDE_SIGNAL_SETTINGS],
      // "Bypass permissions" mode: no tool call asks first.
      autoApprove: ['--dangerously-skip-permissions'],
    },
    codex: {
      ...PROFILE_DEFAULTS,
      command: 'codex',
      args: ['--', '{prompt}'],
      resumeArgs: ['resume', '--last'],
      secretEnv: ['OPENAI_API_KEY'],
      idleSeconds: 30,
      signalArgs: ['-c', CODEX_NOTIFY],
      // Approval policy "never" and no sandbox: the one flag documented to run everything without asking.
      // (`--full-auto` still asks on request, when a command would leave its workspace-write sandbox.)
      autoApprove: ['--dangerously-bypass-approvals-and-sandbox'],
    },
    aider: {
      ...PROFILE_DEFAULTS,
      command: 'aider',
      // aider takes no prompt on its command line without exiting after it (`--message`), so none is passed.
      args: [],
      resumeArgs: ['--restore-chat-history'],
      secretEnv: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
      waitingPattern: '^> ?$',
      idleSeconds: 30,
      // Answers yes to every confirmation (edits, commands, adding files).
      autoApprove: ['--yes-always'],
    },
    shell: {
      ...PROFILE_DEFAULTS,
      command: env.SHELL && env.SHELL.length > 0 ? env.SHELL : '/bin/bash',
    },
    // A small real program run as an agent (resources/demo-agent.sh): it echoes the prompt, edits and
    // commits in its worktree, asks [y/n] (signalling waiting), and finishes on y or fails on n.
    demo: {
      ...PROFILE_DEFAULTS,
      command: 'bash',
      args: [demoAgentScript(), '--', '{prompt}'],
      waitingPattern: '\\[y/n\\]\\s*$',
    },
  };
}

export const DEFAULT_PROFILE = 'claude';

/** The built-in profile whose program is `program` (by its executable's name), for `start -- <program> …`. */
export function builtinForProgram(program: string, env: NodeJS.ProcessEnv): string | null {
  const name = program.split('/').pop() ?? program;
  for (const [profile, p] of Object.entries(builtinProfiles(env))) {
    // Only the agent CLIs: `bash` is the demo's and the shell's program, and means neither.
    if (profile !== 'shell' && profile !== 'demo' && p.command === name) return profile;
  }
  return null;
}
