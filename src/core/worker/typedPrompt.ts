/**
 * The prompt the execution's argv does not carry (`settings.typedPrompt`: the start's or the retry's
 * for aider's profile, the shell's, a profile without `{prompt}` in its args or resume arguments, an
 * explicit command), typed in with Enter once the agent asks for it. Without a waiting pattern it is
 * typed at once. A profile that says how its agent asks (a waiting pattern) has it typed when the
 * waiting detector finds the agent asking (waiting.ts, `FirstAsking`): the pattern on the line where
 * the cursor waits, that line settled — not the first time the pattern shows anywhere on screen. aider
 * asks other questions first (whether to add `.aider*` to `.gitignore`), and a retried aider prints
 * its restored chat history before it asks; a bare `>` line in that history, or a question's words in
 * any output, once took the prompt, and the question asked next read it as its answer (bug 99). Typed
 * in place of the wait it answers: that wait is never recorded, and nobody is told the agent needs them.
 * A question asked elsewhere (not at the cursor: printed with a newline after it, a clock parked
 * below it, a spinner on its line) is never answered with it: the detector raises that wait after
 * a grace (5 s), as without a prompt to type. From then on it is no longer typed by itself (`drop`),
 * nor once the person types into the agent first: kept pending, it was typed into whatever the agent
 * asked next — a later question after the person answered the first, or the agent's own prompt after
 * the person had given it the task (bug 99). The person is told (the worker's log, the timeline, the
 * record's detail); its text stays in the record (`settings.typedPrompt`, `paddock show --json`).
 */
import { describeError } from '../common/errors';

export class TypedPrompt {
  private pending: string | undefined;

  constructor(
    text: string,
    /** Whether it waits for the agent to ask (the profile has a waiting pattern). */
    private readonly waitsForAsking: boolean,
    private readonly type: (text: string) => Promise<void>,
    private readonly log: (message: string) => void,
    /** It will not be typed any more (`drop`), and why: the person is told. */
    private readonly dropped: (why: string) => void = () => undefined,
  ) {
    this.pending = text;
  }

  /** The agent runs: without a pattern, the prompt is typed now. */
  started(): void {
    if (!this.waitsForAsking) this.typeNow();
  }

  /** It is still to be typed. */
  get isPending(): boolean {
    return this.pending !== undefined;
  }

  /** The agent asks (the waiting detector's judgement): typed now; false when it was typed before. */
  asked(): boolean {
    if (this.pending === undefined) return false;
    this.typeNow();
    return true;
  }

  /** It is not to be typed by itself any more (the person was asked first, or typed first): told, once. */
  drop(why: string): void {
    if (this.pending === undefined) return;
    this.pending = undefined;
    this.dropped(why);
  }

  private typeNow(): void {
    const text = this.pending;
    if (text === undefined) return;
    this.pending = undefined;
    this.type(text).catch((err: unknown) => this.log(`the prompt could not be typed in: ${describeError(err)}`));
  }
}
