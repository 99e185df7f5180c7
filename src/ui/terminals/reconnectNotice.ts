/**
 * What a terminal that cannot (re)connect says, once a spell of reconnecting. A stopped or
 * unreachable worker fails every retry alike: said at each, the notice came every 5 s for as long
 * as it lasted and scrolled the agent's last screen away (bug 153). Every reason said in the
 * spell is remembered, not only the last: two failures taking turns (A, B, A, …) would otherwise
 * write a line at every retry again.
 */
import { printable } from '../../core/common/printable';

export interface ReconnectNotice {
  /** The first of the spell: written with the mode reset (nobody draws the agent's screen now). */
  first: boolean;
  words: string;
}

export class ReconnectNotices {
  private readonly said = new Set<string>();
  private notSentSaid = false;

  /** Whether this spell said keys were not sent. */
  get saidNotSent(): boolean {
    return this.notSentSaid;
  }

  /** A screen came: the next failure starts a new spell. */
  reset(): void {
    this.said.clear();
    this.notSentSaid = false;
  }

  /**
   * What to say when keys are typed with no screen of the agent shown (bug 171), once a spell. They
   * are not kept for later: typed at a screen that is gone, they could answer a question the agent
   * no longer asks, or one of the next generation's after a Retry, that the person has not seen.
   */
  notSent(attachedOnce: boolean): string | undefined {
    if (this.notSentSaid) return undefined;
    this.notSentSaid = true;
    return attachedOnce
      ? 'what you typed was not sent: the terminal is reconnecting. Type it again once the agent\'s screen is back.'
      : 'what you typed was not sent: the agent\'s screen is not shown yet. Type it again once it is.';
  }

  /** What to say for this failed attempt, or undefined when this spell has said its reason already. */
  next(reason: string, attachedOnce: boolean): ReconnectNotice | undefined {
    // A socket's or worker's words: shown, never obeyed, on the agent's terminal.
    const why = printable(reason.replace(/\.$/, ''));
    if (this.said.has(why)) return undefined;
    const first = this.said.size === 0;
    this.said.add(why);
    if (!first) return { first, words: `still reconnecting: ${why}…` };
    return { first, words: attachedOnce ? `connection lost (${why}); reconnecting…` : `cannot connect (${why}); trying again…` };
  }
}
