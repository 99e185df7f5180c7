/**
 * The prompt the execution's argv does not carry (`settings.typedPrompt`: the start's or the retry's
 * for aider's profile, the shell's, a profile without `{prompt}` in its args or resume arguments, an
 * explicit command), typed in with Enter once the agent asks for it. A profile that says how its agent
 * asks (a waiting pattern) has it typed the first time the screen shows that: aider asks other
 * questions first (whether to add `.aider*` to `.gitignore`), which would take the prompt as their
 * answer, and a retried agent prints its restored history before it asks. Without a pattern it is
 * typed at once. Typed as soon as the screen shows the pattern — before the waiting detector's own
 * look — so the wait it answers is never recorded, and nobody is told the agent needs them.
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

  /** The screen changed: the prompt is typed the first time it shows the agent asking. */
  screenChanged(screen: () => string): void {
    if (this.pending === undefined || this.pattern === null) return;
    this.pattern.lastIndex = 0;
    if (this.pattern.test(screen())) this.typeNow();
  }

  private typeNow(): void {
    const text = this.pending;
    if (text === undefined) return;
    this.pending = undefined;
    this.type(text).catch((err: unknown) => this.log(`the prompt could not be typed in: ${describeError(err)}`));
  }
}
