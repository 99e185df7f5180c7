/**
 * Removes secrets from anything Paddock persists: the values of the job's secret
 * environment variables, and token shapes that are secrets wherever they appear.
 */
export const REDACTED = '[REDACTED]';

/** Shapes of well-known credentials. Over-redacting a look-alike is acceptable; leaking is not. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic API keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, // HTTP bearer credentials
];

/** Values shorter than this are not treated as secrets: redacting "1" everywhere would destroy the output. */
export const MIN_SECRET_LENGTH = 4;

export interface Span {
  start: number;
  end: number;
}

export class Redactor {
  private readonly secrets: string[];

  constructor(secretValues: readonly string[] = []) {
    const unique = new Set(secretValues.filter((v) => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH));
    // Longest first, so a secret that contains another is removed whole.
    this.secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** The values of `names` in `env` (those that are set). */
  static fromEnv(names: readonly string[], env: NodeJS.ProcessEnv = process.env): Redactor {
    return new Redactor(names.map((n) => env[n]).filter((v): v is string => typeof v === 'string'));
  }

  /** Length of the longest configured secret: a streaming writer must hold back at least this much. */
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

  get longestSecret(): number {
    return this.secrets[0]?.length ?? 0;
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const shape of TOKEN_SHAPES) {
      out = out.replace(shape, (m) => (/^bearer/i.test(m) ? `${m.slice(0, 6)} ${REDACTED}` : REDACTED));
    }
    return out;
  }

  redactNullable(text: string | null): string | null {
    return text === null ? null : this.redact(text);
  }

  /** Where in `text` something would be redacted: lets a stream avoid cutting through a secret. */
  spans(text: string): Span[] {
    const spans: Span[] = [];
    for (const secret of this.secrets) {
      for (let i = text.indexOf(secret); i >= 0; i = text.indexOf(secret, i + 1)) spans.push({ start: i, end: i + secret.length });
    }
    for (const shape of TOKEN_SHAPES) {
      for (const m of text.matchAll(shape)) spans.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
    }
    return spans;
  }
}
