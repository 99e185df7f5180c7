/**
 * Removes secrets from anything Paddock persists: the values of the job's secret
 * environment variables, and token shapes that are secrets wherever they appear.
 */
import { hasInvisible, project, Projection } from './visibleText';

export const REDACTED = '[REDACTED]';

/** Shapes of well-known credentials. Over-redacting a look-alike is acceptable; leaking is not. */
function tokenShapes(space: string): readonly RegExp[] {
  return [
    /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic API keys
    /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
    /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
    /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
    /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
    /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
    /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
    // HTTP bearer credentials: the credential only, "Bearer" stays readable.
    new RegExp(`(?<=\\bBearer${space}+)[A-Za-z0-9._~+/=-]{8,}`, 'gi'),
  ];
}

const TEXT_SHAPES = tokenShapes('\\s');
/**
 * In the byte view (UTF-8 read as latin1, one character per byte) `\s` sees
 * only ASCII spaces and 0xA0: the UTF-8 encodings of the other characters `\s`
 * matches in text (U+00A0, U+1680, U+2000–200A, U+2028/9, U+202F, U+205F,
 * U+3000, U+FEFF) are spelled out. Every other shape is ASCII and matches the
 * same in both views (non-ASCII is never \w without the u flag).
 */
const BYTE_SHAPES = tokenShapes('(?:\\s|\\xc2\\xa0|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80|\\xef\\xbb\\xbf)');

/**
 * Every token shape starts with one of these: text without any (nearly all
 * output) is scanned once instead of once per shape.
 */
const ANY_SHAPE = /\b(?:sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|xox[abposr]-|AIza|[Bb][Ee][Aa][Rr][Ee][Rr])/;
/** The longest of those starts, with the character before it (for `\b`). */
const ANY_SHAPE_LENGTH = 'xgithub_pat_'.length;

/**
 * A token whose start is there but whose end may not be yet: held back during
 * a quiet moment. Only starts distinctive enough to be worth the wait.
 */
const TOKEN_AT_END = /(?:\b(?:sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|xox[abposr]-|AIza)[A-Za-z0-9_-]*|\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/=-]*)$/;
/** How far back an unfinished token is looked for: bounds what a quiet moment holds back. */
const TOKEN_LOOKBACK = 512;

/** Values shorter than this are not treated as secrets: redacting "1" everywhere would destroy the output. */
export const MIN_SECRET_LENGTH = 4;

export interface Span {
  start: number;
  end: number;
}

export class Redactor {
  private readonly secrets: string[];
  private readonly shapes: readonly RegExp[];
  private bytes: Redactor | undefined;

  constructor(secretValues: readonly string[] = [], view: 'text' | 'bytes' = 'text') {
    const unique = new Set(secretValues.filter((v) => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH));
    // Longest first, so a secret that contains another is removed whole.
    this.secrets = [...unique].sort((a, b) => b.length - a.length);
    this.shapes = view === 'bytes' ? BYTE_SHAPES : TEXT_SHAPES;
  }

  /**
   * The same redactor for UTF-8 bytes read as latin1 strings (`buf.latin1Slice()`):
   * a stream of raw output is redacted without decoding and re-encoding it,
   * and indexes are byte offsets. Secrets are matched by their UTF-8 bytes.
   */
  bytesView(): Redactor {
    return (this.bytes ??= new Redactor(
      this.secrets.map((s) => Buffer.from(s, 'utf8').toString('latin1')),
      'bytes',
    ));
  }

  /** This redactor plus the values of `names` in `env` (a job's secret variables, seen by whoever writes about it). */
  withEnv(names: readonly string[], env: NodeJS.ProcessEnv): Redactor {
    const values = names.map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH);
    return values.length === 0 ? this : new Redactor([...this.secrets, ...values]);
  }

  /** The values of `names` in `env` (those that are set). */
  static fromEnv(names: readonly string[], env: NodeJS.ProcessEnv = process.env): Redactor {
    return new Redactor(names.map((n) => env[n]).filter((v): v is string => typeof v === 'string'));
  }

  /**
   * Length of the longest end of `text` that is the beginning of a secret: it
   * may be completed by later output, so it must not be written yet.
   */
  secretPrefixAtEnd(text: string): number {
    let best = 0;
    for (const secret of this.secrets) {
      for (let n = Math.min(secret.length - 1, text.length); n > best; n--) {
        if (text.endsWith(secret.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }

  /** Length of the longest configured secret: a streaming writer must hold back at least this much. */
  get longestSecret(): number {
    return this.secrets[0]?.length ?? 0;
  }

  /** How much of a text `mayMatch` needs to see to recognise a match in it. */
  get recognitionLength(): number {
    return Math.max(ANY_SHAPE_LENGTH, this.longestSecret);
  }

  /**
   * False when `text` holds nothing to redact; cheap: one scan for the shapes,
   * one per secret (and, for text with escape sequences, the same on what a
   * terminal shows of it: its `projection`, when the caller has it already).
   */
  mayMatch(text: string, projection: Projection | null = hasInvisible(text) ? project(text) : null): boolean {
    return this.mayMatchRaw(text) || (projection !== null && this.mayMatchRaw(projection.visible));
  }

  /** `mayMatch` for text known to have no escape sequence or silent control. */
  mayMatchRaw(text: string): boolean {
    return ANY_SHAPE.test(text) || this.secrets.some((s) => text.includes(s));
  }

  redact(text: string): string {
    if (hasInvisible(text)) return replaceSpans(text, this.spans(text));
    // Every match found in the text as given, then replaced together: replacing one secret after
    // another left the rest of a match that overlapped one replaced before it (a secret that
    // begins as it ends, written twice in a row; two secrets sharing characters) in the clear.
    return this.mayMatchRaw(text) ? replaceSpans(text, this.plainSpans(text)) : text;
  }

  redactNullable(text: string | null): string | null {
    return text === null ? null : this.redact(text);
  }

  /**
   * Where in `text` something would be redacted: lets a stream avoid cutting
   * through a secret. Matches are looked for in the raw text and in what a
   * terminal shows of it; a match there covers the raw text from its first
   * shown character to its last, escape sequences inside included.
   */
  spans(text: string): Span[] {
    const spans = this.plainSpans(text);
    if (!hasInvisible(text)) return spans;
    const { visible, map } = project(text);
    if (map === null) return spans;
    for (const s of this.plainSpans(visible)) spans.push({ start: map[s.start], end: map[s.end - 1] + 1 });
    return spans;
  }

  private plainSpans(text: string): Span[] {
    const spans: Span[] = [];
    for (const secret of this.secrets) {
      for (let i = text.indexOf(secret); i >= 0; i = text.indexOf(secret, i + 1)) spans.push({ start: i, end: i + secret.length });
    }
    if (!ANY_SHAPE.test(text)) return spans;
    for (const shape of this.shapes) {
      for (const m of text.matchAll(shape)) spans.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
    }
    return spans;
  }

  /**
   * How much of the end of `text` a stream must not write during a quiet
   * moment: the start of a secret or of a token (as a terminal shows it) that
   * later output may complete, and an escape sequence still open.
   */
  heldEnd(text: string): number {
    const projection = project(text);
    let from = text.length;
    if (projection.openAt >= 0) from = projection.openAt;
    const visibleStart = projection.visible.length - Math.max(this.secretPrefixAtEnd(projection.visible), tokenStartAtEnd(projection.visible));
    if (visibleStart < projection.visible.length) from = Math.min(from, rawIndex(projection, visibleStart));
    return text.length - from;
  }
}

/** Length of an unfinished token at the end of `text` (its start is known, its end may still come). */
function tokenStartAtEnd(text: string): number {
  const m = TOKEN_AT_END.exec(text.slice(-TOKEN_LOOKBACK));
  return m ? m[0].length : 0;
}

/** The raw index of visible character `n`. */
export function rawIndex(projection: Projection, n: number): number {
  return projection.map === null ? n : projection.map[n];
}

/** `text` with every span (overlapping ones merged) replaced by REDACTED. */
function replaceSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  let i = 0;
  while (i < spans.length) {
    const start = spans[i].start;
    let end = spans[i].end;
    for (i++; i < spans.length && spans[i].start < end; i++) end = Math.max(end, spans[i].end);
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}

