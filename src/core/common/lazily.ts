/**
 * A value built on first use and kept: for zod schemas that a short-lived
 * process (`paddock list`) usually never needs, so it does not build them
 * when their module loads.
 */
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
