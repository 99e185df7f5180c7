/**
 * Redaction of a stream of raw output on its way to disk. Appends are gathered
 * (a PTY delivers ~4 KB per read) and looked at together, as bytes read as
 * latin1: one character per byte, so there is no UTF-8 decoding or re-encoding
 * and string indexes are byte offsets. Output with nothing to redact, nearly
 * all of it, is passed on as the very buffers that came in. The last few
 * hundred bytes are held back until more output (or a quiet moment, or the
 * end) shows that no secret is cut in half.
 *
 * Secrets are matched as a terminal shows the text too (visibleText.ts):
 * colour codes or cursor moves inside a secret do not hide it, and the whole
 * span, sequences included, is redacted. Output with escape sequences takes
 * the slower path, where what is held back is counted in shown characters.
 */
import { rawIndex, Redactor } from './redactor';
import { hasInvisible, mayHaveInvisible, project, Projection } from './visibleText';

/** At least this much is held back so a token split across two chunks is still seen whole. */
const MIN_HOLD_BACK = 256;
/**
 * How far back from a cut a match that straddles it is looked for: farther
 * than any real credential, and it bounds what is held back (a runaway
 * "token" must not grow memory).
 */
const SPAN_WINDOW = 16 * 1024;
/** Appends are looked at once this much is gathered... */
const SLAB_BYTES = 64 * 1024;
/** ...or at the latest this long after they came (not one write per keystroke echo). */
const BATCH_MS = 20;
/**
 * At most this much raw output is held back, however few characters it shows
 * (a runaway escape sequence must not grow memory).
 */
const MAX_RAW_HOLD = 64 * 1024;
/** After this much quiet the held-back end is written too (except the start of a secret). */
const QUIET_FLUSH_MS = 100;

export class RedactingStream {
  /** Works on bytes read as latin1. */
  private readonly redactor: Redactor;
  /** Appended, not yet looked at. */
  private queue: Buffer[] = [];
  private queued = 0;
  /** Looked at but held back (latin1). */
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private lastAppendAt = 0;
  private ended = false;

  constructor(
    redactor: Redactor,
    /** Receives the redacted bytes, in order (the buffers may be the appended ones). */
    private readonly sink: (chunks: Buffer[]) => void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.redactor = redactor.bytesView();
  }

  /** Keeps `bytes` by reference until it is written: the caller must not reuse the buffer. */
  append(bytes: Buffer): void {
    if (this.ended || bytes.length === 0) return;
    this.queue.push(bytes);
    this.queued += bytes.length;
    this.lastAppendAt = performance.now();
    if (this.queued >= SLAB_BYTES) this.take();
    this.schedule();
  }

  /**
   * Writes what is held, except an end that could be the start of a secret
   * printed in two parts (a pause between them must not let it through whole).
   */
  flush(): void {
    this.take();
    const text = this.pending;
    // What is held is where a secret may start; a whole one just before it is never cut (a secret
    // ending in what starts one, "…ab" before "ab…", was written in two parts, each unredacted: bug 67).
    const cut = this.cutOutsideSpans(text, text.length - Math.min(this.redactor.heldEnd(text), MAX_RAW_HOLD));
    this.writePending(text.length - cut);
  }

  /**
   * Writes everything held, a possible start of a secret too: where the output changes hands (a
   * command Paddock ran ends, the agent begins), so nothing of one is counted with the other.
   */
  writeHeld(): void {
    this.take();
    this.writePending(0);
  }

  /** Writes everything; later appends are ignored. */
  end(): void {
    if (this.ended) return;
    this.writeHeld();
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.take();
      if (!this.pending) return;
      if (performance.now() - this.lastAppendAt >= QUIET_FLUSH_MS) this.flush();
      else this.schedule();
    }, BATCH_MS);
    this.timer.unref?.();
  }

  private get holdBack(): number {
    return Math.max(MIN_HOLD_BACK, this.redactor.longestSecret);
  }

  private take(): void {
    if (this.queue.length === 0) return;
    const parts = this.queue;
    this.queue = [];
    this.queued = 0;
    if (this.nothingToRedact(parts)) return this.passThrough(parts);
    for (const slab of slabs(parts)) {
      this.pending += slab.toString('latin1');
      this.writeSettled();
    }
  }

  /**
   * Whether `pending` followed by `parts` has nothing to redact. Each part is
   * scanned on its own (no large string is built), and each seam between two
   * with enough on both sides to recognise any match across it.
   */
  private nothingToRedact(parts: Buffer[]): boolean {
    const r = this.redactor;
    const seam = r.recognitionLength - 1;
    // Escape sequences or silent controls: the slower path matches what a terminal shows.
    if (mayHaveInvisible(this.pending) || r.mayMatchRaw(this.pending)) return false;
    let tail = this.pending.slice(-seam);
    for (const part of parts) {
      const text = part.toString('latin1');
      if (mayHaveInvisible(text) || r.mayMatchRaw(text) || (tail && r.mayMatchRaw(tail + text.slice(0, seam)))) return false;
      tail = text.length >= seam ? text.slice(-seam) : (tail + text).slice(-seam);
    }
    return true;
  }

  /** Sends `pending` and `parts` on unchanged, except the held-back end. */
  private passThrough(parts: Buffer[]): void {
    const out = this.pending ? [Buffer.from(this.pending, 'latin1'), ...parts] : parts;
    const kept: string[] = [];
    for (let keep = this.holdBack; keep > 0 && out.length > 0; ) {
      const last = out[out.length - 1];
      if (last.length <= keep) {
        kept.unshift(last.toString('latin1'));
        keep -= last.length;
        out.pop();
      } else {
        kept.unshift(last.toString('latin1', last.length - keep));
        out[out.length - 1] = last.subarray(0, last.length - keep);
        keep = 0;
      }
    }
    this.pending = kept.join('');
    if (out.length > 0) this.emit(out);
  }

  /** Writes `pending` but its end, never cutting through something that would be redacted (cut before it instead). */
  private writeSettled(): void {
    const text = this.pending;
    if (text.length <= this.holdBack) return;
    const projection = hasInvisible(text) ? project(text) : null;
    let cut = this.settledEnd(text, projection);
    if (cut <= 0) return;
    if (!this.redactor.mayMatch(text, projection)) {
      // Nothing to redact anywhere in it (coloured output, nearly always): no span to look for.
      this.pending = text.slice(cut);
      this.emit([Buffer.from(text.slice(0, cut), 'latin1')]);
      return;
    }
    cut = this.cutOutsideSpans(text, cut);
    this.writePending(text.length - cut);
  }

  /** `cut`, or the start of the earliest match it would fall inside (matches may overlap, a cut moved back may fall in another). */
  private cutOutsideSpans(text: string, cut: number): number {
    if (cut <= 0 || cut >= text.length) return cut;
    const from = Math.max(0, cut - SPAN_WINDOW);
    const spans = this.redactor.spans(text.slice(from)).sort((a, b) => b.start - a.start);
    for (const span of spans) {
      if (from + span.start < cut && from + span.end > cut) cut = from + span.start;
    }
    return cut;
  }

  /**
   * Where the held-back end of `text` starts: the last `holdBack` characters
   * a terminal would show (with the escape sequences between them), at most
   * MAX_RAW_HOLD bytes. A cut falls before a shown character, so `pending`
   * always starts outside an escape sequence.
   */
  private settledEnd(text: string, projection: Projection | null): number {
    const byBytes = text.length - this.holdBack;
    if (byBytes <= 0 || projection === null) return byBytes;
    const shown = projection.visible.length - this.holdBack;
    const cut = shown <= 0 ? 0 : rawIndex(projection, shown);
    return Math.max(cut, text.length - MAX_RAW_HOLD);
  }

  /** Writes `pending`, redacted, except its last `keep` bytes. */
  private writePending(keep: number): void {
    const cut = this.pending.length - keep;
    if (cut <= 0) return;
    const text = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    this.emit([Buffer.from(this.redactor.redact(text), 'latin1')]);
  }

  private emit(chunks: Buffer[]): void {
    try {
      this.sink(chunks);
    } catch (err) {
      this.onError(err);
    }
  }
}

/** `parts` regrouped into buffers of at most SLAB_BYTES (large strings and buffers are costly to allocate). */
function* slabs(parts: Buffer[]): Generator<Buffer> {
  let group: Buffer[] = [];
  let n = 0;
  for (let part of parts) {
    while (n + part.length > SLAB_BYTES) {
      const room = SLAB_BYTES - n;
      group.push(part.subarray(0, room));
      yield Buffer.concat(group, SLAB_BYTES);
      group = [];
      n = 0;
      part = part.subarray(room);
    }
    group.push(part);
    n += part.length;
  }
  if (n > 0) yield group.length === 1 ? group[0] : Buffer.concat(group, n);
}
