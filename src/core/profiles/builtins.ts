/** The profiles Paddock knows without configuration. */
import { Profile } from './profile';

/** What a profile is without saying otherwise: no arguments, no resume, no waiting detection. */
export const PROFILE_DEFAULTS: Omit<Profile, 'command'> = {
  args: [],
  resumeArgs: null,
  env: {},
  secretEnv: [],
  waitingPattern: null,
  idleSeconds: null,
  signalArgs: [],
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
      // Continues the most recent conversation in this directory, i.e. this worktree's.
      resumeArgs: ['--continue'],
      secretEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
      // The quiet-screen guess stays as the fallback for a hook that does not fire.
      idleSeconds: 30,
      signalArgs: ['--settings', CLAUDE_SIGNAL_SETTINGS],
    },
    codex: {
      ...PROFILE_DEFAULTS,
      command: 'codex',
      args: ['--', '{prompt}'],
      resumeArgs: ['resume', '--last'],
      secretEnv: ['OPENAI_API_KEY'],
      idleSeconds: 30,
      signalArgs: ['-c', CODEX_NOTIFY],
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
    },
    shell: {
      ...PROFILE_DEFAULTS,
      command: env.SHELL && env.SHELL.length > 0 ? env.SHELL : '/bin/bash',
    },
  };
}

export const DEFAULT_PROFILE = 'claude';

/** The built-in profile whose program is `program` (by its executable's name), for `start -- <program> …`. */
export function builtinForProgram(program: string, env: NodeJS.ProcessEnv): string | null {
  const name = program.split('/').pop() ?? program;
  for (const [profile, p] of Object.entries(builtinProfiles(env))) {
    if (profile !== 'shell' && p.command === name) return profile;
  }
  return null;
}
