/** The profiles Paddock knows without configuration. */
import { Profile } from './profile';

const base: Omit<Profile, 'command'> = {
  args: [],
  resumeArgs: null,
  env: {},
  secretEnv: [],
  waitingPattern: null,
  idleSeconds: null,
};

export function builtinProfiles(env: NodeJS.ProcessEnv): Record<string, Profile> {
  return {
    claude: {
      ...base,
      command: 'claude',
      // `--` ends its options: a prompt starting with '-' stays the prompt.
      args: ['--', '{prompt}'],
      // Continues the most recent conversation in this directory, i.e. this worktree's.
      resumeArgs: ['--continue'],
      secretEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
      idleSeconds: 30,
    },
    codex: {
      ...base,
      command: 'codex',
      args: ['--', '{prompt}'],
      resumeArgs: ['resume', '--last'],
      secretEnv: ['OPENAI_API_KEY'],
      idleSeconds: 30,
    },
    aider: {
      ...base,
      command: 'aider',
      // aider takes no prompt on its command line without exiting after it (`--message`), so none is passed.
      args: [],
      resumeArgs: ['--restore-chat-history'],
      secretEnv: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
      waitingPattern: '^> ?$',
      idleSeconds: 30,
    },
    shell: {
      ...base,
      command: env.SHELL && env.SHELL.length > 0 ? env.SHELL : '/bin/bash',
    },
  };
}

export const DEFAULT_PROFILE = 'claude';
