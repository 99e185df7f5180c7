/**
 * An agent profile: how to launch one kind of agent. Built-ins cover the
 * common agent CLIs; the person overrides or adds profiles through the
 * `paddock.profiles` setting, which is validated here like anything read from disk.
 */
import * as z from '../common/zod';

/** The placeholder in `args` replaced by the start prompt. */
export const PROMPT_PLACEHOLDER = '{prompt}';

const Text = (max: number) => z.string().check(z.maxLength(max));

export const ProfileSchema = z.object({
  command: Text(4096).check(z.minLength(1)),
  /** Arguments for a first start; an argument containing `{prompt}` is dropped (with its flag) when there is no prompt. */
  args: z.array(Text(4096)).check(z.maxLength(64)),
  /** Arguments for a retry (a new generation in the same worktree), e.g. `--continue`; null: same args as a start. */
  resumeArgs: z.nullable(z.array(Text(4096)).check(z.maxLength(64))),
  /** Extra environment for the agent (values are not stored, only names). */
  env: z.record(Text(256), Text(8192)),
  /** Names of environment variables whose values are secrets: redacted from everything persisted. */
  secretEnv: z.array(Text(256)).check(z.maxLength(64)),
  /** Regular expression (source) that marks the screen as waiting for the person; null: none. */
  waitingPattern: z.nullable(Text(500)),
  /** Seconds without output after which the agent counts as waiting; null: never. */
  idleSeconds: z.nullable(z.number().check(z.gte(0), z.lte(86_400))),
  /**
   * Arguments that make the agent report "waiting"/"running" itself through
   * `paddock signal` (Claude Code hooks, Codex's notify program), put first on
   * every start and retry, also of a `paddock start -- <agent>` matched to this profile.
   */
  signalArgs: z._default(z.array(Text(8192)).check(z.maxLength(16)), []),
  /**
   * Arguments that make the agent act without asking for approval (Claude Code's
   * `--dangerously-skip-permissions`, …), added only when a start asks for auto-approve;
   * null: the agent has no such flag and a start with auto-approve is refused.
   */
  autoApprove: z._default(z.nullable(z.array(Text(4096).check(z.minLength(1))).check(z.minLength(1), z.maxLength(16))), null),
});
export type Profile = z.infer<typeof ProfileSchema>;

/** What a person may write in `paddock.profiles.<name>`: any subset; the rest comes from the built-in or defaults. */
export const ProfileOverrideSchema = z.strictObject(z.partial(ProfileSchema).shape);
export type ProfileOverride = z.infer<typeof ProfileOverrideSchema>;

export const ProfileOverridesSchema = z.record(z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/)), ProfileOverrideSchema);
export type ProfileOverrides = z.infer<typeof ProfileOverridesSchema>;
