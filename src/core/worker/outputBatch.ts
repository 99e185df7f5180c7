/** The output the control server hands to every viewer at once (connection.ts writes it). */
import { binaryOutputHeader, encodeFrame } from '../protocol/framing';

/**
 * One batch of output for every viewer: the PTY's reads as they came (UTF-8,
 * never ending inside a character), behind a binary frame header. They are
 * never copied into one buffer (a large allocation per frame costs more than
 * the copy): the socket writes them together. The JSON line for viewers that
 * did not ask for binary frames is encoded once, on first use.
 */
export class OutputBatch {
  private json: string | undefined;
  readonly header: Buffer;

  constructor(
    readonly chunks: readonly Buffer[],
    readonly bytes: number,
  ) {
    this.header = binaryOutputHeader(bytes);
  }

  jsonFrame(): string {
    return (this.json ??= encodeFrame({ type: 'output', data: Buffer.concat(this.chunks, this.bytes).toString('utf8') }));
  }
}
