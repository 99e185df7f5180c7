/**
 * Send: types text and Enter into an agent's terminal. The one door for it —
 * the CLI's `paddock send` and the window's Send Prompt both come here, so the
 * rule (`sendBlocker`) and the input limit are checked the same way for both.
 */
import { usageError } from '../common/errors';
import { assertTextLength } from '../common/textLimit';
import { WorkerClient, type JobReader } from '../protocol/client';
import { MAX_INPUT_CHARS } from '../protocol/messages';
import { sendBlocker } from './rules';

export async function sendToAgent(store: JobReader, id: string, text: string): Promise<void> {
  // Over-long text is refused before anything is read or connected.
  assertTextLength(text, MAX_INPUT_CHARS, 'text');
  const job = await store.read(id);
  // A starting agent is let through by the rule: the connection waits for its socket (WorkerClient.connect).
  const blocker = sendBlocker(job);
  if (blocker) throw usageError(blocker);
  const client = await WorkerClient.connect(store, id);
  try {
    await client.hello();
    await client.send(text);
  } finally {
    client.dispose();
  }
}
