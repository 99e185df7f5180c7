// A bench row's goal, declared once: the text the table prints and the test
// `--check` applies both come from it. A row may hold several goals (all must
// hold), or an informational one that never fails.

/** 1 → "1.0", 1.25 → "1.25": ratios always show a decimal. */
const ratioText = (x) => (Number.isInteger(x) ? x.toFixed(1) : String(x));

/** paddock / baseline at most `max` (e.g. 1.2 → "≤ 1.2×"). */
export const ratioAtMost = (max) => ({ text: `≤ ${ratioText(max)}×`, pass: (r) => r.paddock / r.baseline <= max });

/** paddock / baseline at least `min` (throughput: higher is better). */
export const ratioAtLeast = (min) => ({ text: `≥ ${ratioText(min)}×`, pass: (r) => r.paddock / r.baseline >= min });

/** paddock − baseline at most `max` in the row's unit. */
export const deltaAtMost = (max, unit) => ({ text: `≤ +${max} ${unit}`, shows: 'delta', pass: (r) => r.paddock - r.baseline <= max });

/** paddock at most `max` in the row's unit, whatever the baseline. */
export const atMost = (max, unit, text = `≤ ${max} ${unit}`) => ({ text, pass: (r) => r.paddock <= max });

/** No goal: the figure is reported for information and never fails `--check`. */
export const report = (text = '(report)') => ({ text, informational: true, pass: () => true });

/**
 * Applies a row's goals to its medians: `{ text, shows, pass, checked }`. A figure
 * that came out NaN (a baseline missing) fails a checked goal rather than
 * passing by accident.
 */
export function judge(goals, medians) {
  const list = Array.isArray(goals) ? goals : [goals];
  const checked = list.filter((g) => !g.informational);
  return {
    text: list.map((g) => g.text).join(' and '),
    shows: list.some((g) => g.shows === 'delta') ? 'delta' : 'ratio',
    checked: checked.length > 0,
    pass: checked.every((g) => Number.isFinite(medians.paddock) && g.pass(medians) === true),
  };
}
