/**
 * What the CLI says of a failure: a file-system error (thrown, or copied into a reason) in words
 * naming the agent and the damaged part of the store, or the path; never Node's errno text (bug 50).
 */
import { storeErrorWords, storeTextWithoutErrno } from '../../core/store/damagedPart';
import { defaultHome } from '../../core/store/paths';

/** A reason (an error's message, a failure's detail) with any errno text in it said in words. */
export function reasonWords(text: string, env: NodeJS.ProcessEnv): string {
  return storeTextWithoutErrno(defaultHome(env), text);
}

/** Any thrown value in one line of words. */
export function errorWords(err: unknown, env: NodeJS.ProcessEnv): string {
  return storeErrorWords(defaultHome(env), err);
}
