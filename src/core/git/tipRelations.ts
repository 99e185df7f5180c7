/**
 * Ahead and behind counts, and the merge base, of many tips against one base,
 * from a single listing of the commits they reach beyond their common ancestor
 * (`git rev-list --topo-order --parents BASE TIP… ^ANCESTOR`): where one
 * `rev-list --left-right --count` and one `merge-base` per agent would start two
 * processes each. Pure: the caller runs git.
 *
 * Why it is exact: every tip and the base reach the common ancestor A, so the
 * commits one reaches are those in the listing it reaches plus everything A
 * reaches, which both sides share. Ahead is what the tip reaches in the listing
 * and the base does not; behind the reverse. The common ancestors of base and tip
 * are A's history plus X, the listed commits both reach; the best ones are X's
 * commits that are no listed commit's parent within X, and A itself unless some
 * commit of X has A as a parent (a path from the listing into A's history enters
 * it at A or at a commit A reaches, which can only reach A if it is A).
 */

export interface TipRelation {
  readonly ahead: number;
  readonly behind: number;
  /** The one best common ancestor with the base; null when there are several (criss-cross merges). */
  readonly mergeBase: string | null;
}

/**
 * `listing`: rev-list's `--parents` lines, children before parents. `base`, the
 * `tips` and `ancestor` are full commit ids; `ancestor` is the single best common
 * ancestor of all of them. Returns a relation per distinct tip.
 */
export function relateTips(listing: string, base: string, tips: readonly string[], ancestor: string): Map<string, TipRelation> {
  const ids: string[] = [];
  const parents: string[][] = [];
  const indexOf = new Map<string, number>();
  for (const line of listing.split('\n')) {
    if (!line) continue;
    const [id, ...ps] = line.split(' ');
    indexOf.set(id, ids.length);
    ids.push(id);
    parents.push(ps);
  }
  // Bit 0 is the base; bit k the k-th distinct tip. `words` 32-bit words per commit.
  const distinct = [...new Set(tips)];
  const words = Math.ceil((distinct.length + 1) / 32);
  const reach = new Uint32Array(ids.length * words);
  const seed = (id: string, bit: number) => {
    const at = indexOf.get(id);
    // A start outside the listing is the common ancestor itself: it reaches nothing listed.
    if (at !== undefined) reach[at * words + (bit >>> 5)] |= 1 << (bit & 31);
  };
  seed(base, 0);
  distinct.forEach((tip, k) => seed(tip, k + 1));
  // Children come first, so a commit's bits are complete before it hands them to its parents.
  for (let c = 0; c < ids.length; c++) {
    for (const p of parents[c]) {
      const at = indexOf.get(p);
      if (at === undefined) continue;
      for (let w = 0; w < words; w++) reach[at * words + w] |= reach[c * words + w];
    }
  }
  const has = (c: number, bit: number) => (reach[c * words + (bit >>> 5)] & (1 << (bit & 31))) !== 0;
  const relations = new Map<string, TipRelation>();
  distinct.forEach((tip, k) => {
    const bit = k + 1;
    let ahead = 0;
    let behind = 0;
    const shared: number[] = [];
    for (let c = 0; c < ids.length; c++) {
      const byBase = has(c, 0);
      const byTip = has(c, bit);
      if (byTip && !byBase) ahead++;
      else if (byBase && !byTip) behind++;
      else if (byBase && byTip) shared.push(c);
    }
    const notBest = new Set<string>();
    let ancestorIsBest = true;
    for (const c of shared) {
      for (const p of parents[c]) {
        notBest.add(p);
        if (p === ancestor) ancestorIsBest = false;
      }
    }
    const best = shared.map((c) => ids[c]).filter((id) => !notBest.has(id));
    if (ancestorIsBest) best.push(ancestor);
    relations.set(tip, { ahead, behind, mergeBase: best.length === 1 ? best[0] : null });
  });
  return relations;
}
