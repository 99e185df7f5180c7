/** Limits on text a person gives (prompts, typed text, arguments), said in one plain sentence instead of a schema message. */
import { usageError } from './errors';

/** Throws "The prompt is N characters; the limit is L." when `text` is over `limit`. */
export function assertTextLength(text: string, limit: number, what = 'prompt'): void {
  if (text.length > limit) throw usageError(`The ${what} is ${text.length} characters; the limit is ${limit}.`, 'TOO_LONG');
}
