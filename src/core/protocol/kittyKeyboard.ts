/**
 * The kitty keyboard protocol's flag stack as a program left it, so a replayed
 * screen puts the viewer's terminal in the same keyboard mode (Codex pushes
 * `CSI > 7 u`: a viewer given `CSI > 1 u` would send keys Codex misreads).
 * Spec: https://sw.kovidgoyal.net/kitty/keyboard-protocol/ — push `CSI > f u`,
 * pop `CSI < n u`, set `CSI = f ; mode u` (1 replace, 2 add bits, 3 remove bits)
 * on the entry on top of the stack (or the base flags when the stack is empty).
 */
/** Terminals bound the stack; kitty keeps this many entries. */
const MAX_DEPTH = 16;

export class KittyKeyboardFlags {
  private base = 0;
  private stack: number[] = [];

  push(flags: number): void {
    if (this.stack.length >= MAX_DEPTH) this.stack.shift();
    this.stack.push(flags);
  }

  pop(count: number): void {
    this.stack.splice(Math.max(0, this.stack.length - Math.max(1, count)));
    // Emptying the stack resets every flag.
    if (this.stack.length === 0) this.base = 0;
  }

  set(flags: number, mode: number): void {
    const current = this.stack.length > 0 ? this.stack[this.stack.length - 1] : this.base;
    const next = mode === 2 ? current | flags : mode === 3 ? current & ~flags : flags;
    if (this.stack.length > 0) this.stack[this.stack.length - 1] = next;
    else this.base = next;
  }

  reset(): void {
    this.base = 0;
    this.stack = [];
  }

  /** The flags currently in force (top of the stack). */
  get current(): number {
    return this.stack.length > 0 ? this.stack[this.stack.length - 1] : this.base;
  }

  /** Sequences that rebuild the same stack in a terminal whose stack is empty. */
  replay(): string {
    let out = this.base !== 0 ? `\x1b[=${this.base};1u` : '';
    for (const flags of this.stack) out += `\x1b[>${flags}u`;
    return out;
  }
}
