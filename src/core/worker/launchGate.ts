/**
 * The launch gate: a first start spawns its worker BEFORE `git worktree add`,
 * so the worker's boot (a Node process loading its bundle: ~175 ms measured,
 * most of what a start costs over raw git) runs while git checks the files
 * out. The gated worker waits on its stdin, a pipe from the launcher, and does
 * nothing with the job until the launcher writes `go` — sent only once the
 * worktree exists and its files are in. Anything else (the launcher ends the
 * pipe after a failed `worktree add`, or dies and the kernel closes it) means
 * "do not start": the worker exits without touching the job, and the
 * launcher's undo (or, if the launcher died, the next reader's judgement of a
 * worker that never claimed) records the failure as for any failed launch.
 */
import type { Readable, Writable } from 'node:stream';

export const LAUNCH_GATE_GO = 'go\n';

/** Worker side: resolves true once `go` arrives, false when the pipe ends (or fails) without it. */
export function awaitLaunchGate(input: Readable): Promise<boolean> {
  return new Promise((resolve) => {
    let received = '';
    const settle = (go: boolean) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      // The pipe has served its purpose: let it close so it never holds the worker's event loop.
      input.destroy();
      resolve(go);
    };
    const onData = (chunk: Buffer | string) => {
      received += chunk.toString();
      if (received.includes(LAUNCH_GATE_GO)) settle(true);
      else if (received.length > LAUNCH_GATE_GO.length) settle(false);
    };
    const onEnd = () => settle(false);
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onEnd);
  });
}

/** Launcher side: opens the gate (`go`) or closes it for good; either way the pipe is ended once. */
export function releaseLaunchGate(pipe: Writable | null, go: boolean): void {
  if (!pipe || pipe.writableEnded) return;
  // A worker that already died makes the write fail with EPIPE: nothing to tell it then.
  pipe.on('error', () => undefined);
  if (go) pipe.end(LAUNCH_GATE_GO);
  else pipe.end();
}
