/**
 * What a viewer says when its connection was lost with input still queued on its side (bug 204): a long paste goes
 * as many frames, and what the socket held when the worker died was dropped without a word, so the person believed
 * the agent had the whole text. One sentence for the window's terminal and `paddock attach`.
 */
export function unsentInputWords(chars: number): string {
  const what = chars === 1 ? '1 character' : `${chars} characters`;
  return `the end of what you typed or pasted (${what}) was not sent: the connection was lost. Send it again once the agent's screen is back.`;
}
