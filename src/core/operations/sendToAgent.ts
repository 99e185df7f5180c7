/**
 * Send: type text and Enter into a running or waiting agent. The one door for
 * every adapter (the CLI's `paddock send`, the window's Send Prompt): the rule
 * (`sendBlocker`) and the input limit are checked here, once.
 */
import { failure } from '../common/errors';
import { assertTextLength } from '../common/textLimit';
import { WorkerClient } from '../protocol/client';
import { MAX_INPUT_CHARS } from '../protocol/messages';
import type { JobStore } from '../store';
import { sendBlocker } from './rules';

export async function sendToAgent(store: JobStore, id: string, text: string): Promise<void> {
  assertTextLength(text, MAX_INPUT_CHARS, 'text');
  const blocker = sendBlocker(await store.read(id));
  if (blocker) throw failure(blocker, 'NOT_SENDABLE');
  const client = await WorkerClient.connect(store, id);
  try {
    await client.hello();
    await client.send(text);
  } finally {
    client.dispose();
  }
}
