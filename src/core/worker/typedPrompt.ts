/**
 * The prompt the execution's argv does not carry (`settings.typedPrompt`: the start's or the retry's
 * for aider's profile, the shell's, a profile without `{prompt}` in its args or resume arguments, an
 * explicit command), typed in with Enter once the agent asks for it. A profile that says how its agent
 * asks (a waiting pattern) has it typed the first time the screen shows that: aider asks other
 * questions first (whether to add `.aider*` to `.gitignore`), which would take the prompt as their
 * answer, and a retried agent prints its restored history before it asks. Without a pattern it is
 * typed at once. Typed when the waiting detector's pattern rule finds the agent asking (the pattern
 * on screen and among the last lines it wrote, its output stopped: the same words in the history
 * or banner it prints first ask nothing), in place of that wait: the wait it answers is never
 * recorded, and nobody is told the agent needs them.
 */
import { describeError } from '../common/errors';

export class TypedPrompt {
  private pending: string | undefined;

  constructor(
    text: string,
    /** The profile's waiting pattern (`waitingPatternOf`), or null. */
    private readonly pattern: RegExp | null,
    private readonly type: (text: string) => Promise<void>,
    private readonly log: (message: string) => void,
  ) {
    this.pending = text;
  }

  /** The agent runs: without a pattern, the prompt is typed now. */
  started(): void {
    if (this.pattern === null) this.typeNow();
  }

  /** The agent asks (its waiting pattern): the prompt is typed the first time; true when it was, now. */
  asked(): boolean {
    if (this.pending === undefined || this.pattern === null) return false;
    this.typeNow();
    return true;
  }

  private typeNow(): void {
    const text = this.pending;
    if (text === undefined) return;
    this.pending = undefined;
    this.type(text).catch((err: unknown) => this.log(`the prompt could not be typed in: ${describeError(err)}`));
  }
}
