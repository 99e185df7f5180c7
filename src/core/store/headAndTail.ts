/**
 * The head and the tail of a stream of bytes, with one line between them saying how many bytes were
 * left out: what the agent's log keeps of a command Paddock runs in the worktree (its setup, its
 * teardown), so a command that prints without end takes a bounded share of the log. The head is
 * passed on as it comes; the tail is held (its last `tailBytes`) and passed on at the end.
 */
export class HeadAndTail {
  private headLeft: number;
  private tail: Buffer[] = [];
  private tailHeld = 0;
  private leftOut = 0;

  constructor(
    headBytes: number,
    private readonly tailBytes: number,
    /** Where the kept bytes go, in order. */
    private readonly emit: (chunks: Buffer[]) => void,
    /** The line that says how many bytes were left out (`leftOut` > 0); empty: none. */
    private readonly notice: (leftOut: number) => string,
  ) {
    this.headLeft = headBytes;
  }

  take(chunks: readonly Buffer[]): void {
    for (let chunk of chunks) {
      if (this.headLeft > 0) {
        const head = chunk.subarray(0, this.headLeft);
        this.headLeft -= head.length;
        this.emit([head]);
        chunk = chunk.subarray(head.length);
      }
      if (chunk.length === 0) continue;
      this.tail.push(chunk);
      this.tailHeld += chunk.length;
      this.trimTail();
    }
  }

  /** Passes on the line about what was left out, if anything was, and the tail. */
  end(): void {
    let tail = Buffer.concat(this.tail, this.tailHeld);
    this.tail = [];
    this.tailHeld = 0;
    if (this.leftOut > 0) {
      // The cut may fall inside a character or an escape sequence: the tail starts at a line.
      const newline = tail.indexOf(0x0a);
      if (newline >= 0) {
        this.leftOut += newline + 1;
        tail = tail.subarray(newline + 1);
      }
      const line = this.notice(this.leftOut);
      if (line) this.emit([Buffer.from(line, 'utf8')]);
    }
    if (tail.length > 0) this.emit([tail]);
  }

  private trimTail(): void {
    while (this.tailHeld > this.tailBytes) {
      const first = this.tail[0];
      const over = this.tailHeld - this.tailBytes;
      if (first.length <= over) {
        this.tail.shift();
        this.tailHeld -= first.length;
        this.leftOut += first.length;
      } else {
        this.tail[0] = first.subarray(over);
        this.tailHeld -= over;
        this.leftOut += over;
      }
    }
  }
}
