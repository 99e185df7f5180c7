/** `paddock screen`'s format: trailing spaces trimmed, trailing empty lines dropped. */
export function trimScreen(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/ +$/, ''));
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}
