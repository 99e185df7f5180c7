// Small statistics over repeated samples: median, quartiles, percentiles.

export function sorted(xs) {
  return [...xs].sort((a, b) => a - b);
}

/** Linear-interpolated percentile (p in 0..100) of the samples. */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  const at = ((s.length - 1) * p) / 100;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}

export const median = (xs) => percentile(xs, 50);

export function summary(xs) {
  return {
    n: xs.length,
    median: median(xs),
    min: xs.length ? Math.min(...xs) : NaN,
    max: xs.length ? Math.max(...xs) : NaN,
    q1: percentile(xs, 25),
    q3: percentile(xs, 75),
    samples: xs,
  };
}
