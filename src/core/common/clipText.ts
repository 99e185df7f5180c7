/**
 * Display text shortened to a bound, with an ellipsis in the middle: a legal path may be kilobytes
 * long, and `printable()` expands each control character fourfold; a sentence recorded with a
 * length limit (the evidence summary, a cleanup's error) must be shortened before it is validated,
 * else the record fails to read back. Never splits a surrogate pair.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 1);
  let head = Math.ceil(keep / 2);
  let tail = keep - head;
  if (/[\uD800-\uDBFF]/.test(text[head - 1] ?? '')) head -= 1;
  if (tail > 0 && /[\uDC00-\uDFFF]/.test(text[text.length - tail] ?? '')) tail -= 1;
  return `${text.slice(0, head)}…${tail > 0 ? text.slice(text.length - tail) : ''}`;
}
