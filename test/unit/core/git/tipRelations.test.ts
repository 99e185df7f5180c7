import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relateTips } from '../../../../src/core/git/tipRelations';
import { Sandbox, useGitSandbox, git } from './gitTestUtil';

/** Deterministic choices for a random history. */
function chooser(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

describe('git/tipRelations: ahead, behind and merge base of many tips from one listing', function () {
  this.timeout(120_000);
  let sb!: Sandbox;
  let repo: string;
  useGitSandbox((fresh) => {
    sb = fresh;
    repo = sb.repo();
  });

  /**
   * A random history of `size` commits grown from the repository's first one: each new
   * commit continues a recent one, and one in four merges two (criss-crosses included).
   * Written by one `git fast-import`, its commit ids read back from the marks.
   */
  function randomHistory(seed: number, size: number): string[] {
    const pick = chooser(seed);
    const root = git(repo, 'rev-parse', 'HEAD');
    const refOf = (k: number) => (k === 0 ? root : `:${k}`);
    let stream = '';
    for (let k = 1; k <= size; k++) {
      const recent = (n: number) => Math.max(0, k - 1 - pick(Math.min(n, k)));
      const first = recent(8);
      const second = pick(4) === 0 ? recent(12) : first;
      const message = `c${seed}.${k}`;
      stream += `commit refs/heads/h${seed}\nmark :${k}\ncommitter T <t@example.invalid> ${k} +0000\ndata ${message.length}\n${message}\n`;
      stream += `from ${refOf(first)}\n${second !== first ? `merge ${refOf(second)}\n` : ''}\n`;
    }
    const marks = sb.path(`marks${seed}`);
    execFileSync('git', ['fast-import', '--quiet', '--force', `--export-marks=${marks}`], { cwd: repo, input: stream });
    const ids = new Map(readFileSync(marks, 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]));
    return [root, ...Array.from({ length: size }, (_, i) => ids.get(`:${i + 1}`)!)];
  }

  it('agrees with git (rev-list --left-right --count, merge-base --all) on random histories with merges', () => {
    let compared = 0;
    let ambiguous = 0;
    let ancestorWasBest = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const commits = randomHistory(seed, 36);
      const pick = chooser(seed * 7919);
      const base = commits[commits.length - 1 - pick(6)];
      const tips = Array.from({ length: 6 }, () => commits[commits.length - 1 - pick(20)]);
      const ancestors = git(repo, 'merge-base', '--all', '--octopus', base, ...tips).split('\n');
      if (ancestors.length !== 1) continue;
      const listing = git(repo, 'rev-list', '--topo-order', '--parents', base, ...tips, `^${ancestors[0]}`);
      const relations = relateTips(listing, base, tips, ancestors[0]);
      for (const tip of new Set(tips)) {
        const [behind, ahead] = git(repo, 'rev-list', '--left-right', '--count', `${base}...${tip}`).split(/\s+/).map(Number);
        const bases = git(repo, 'merge-base', '--all', base, tip).split('\n');
        const r = relations.get(tip)!;
        assert.deepEqual([r.ahead, r.behind], [ahead, behind], `seed ${seed}: ahead/behind of ${tip} against ${base}`);
        assert.equal(r.mergeBase, bases.length === 1 ? bases[0] : null, `seed ${seed}: merge base of ${tip} (git: ${bases.join(', ')})`);
        compared++;
        if (bases.length > 1) ambiguous++;
        if (bases.length === 1 && bases[0] === ancestors[0]) ancestorWasBest++;
      }
    }
    // The histories must have exercised every case, or the agreement proves little.
    assert.ok(compared >= 30, `compared ${compared} tips`);
    assert.ok(ambiguous > 0, 'no criss-cross merge base came up');
    assert.ok(ancestorWasBest > 0, 'no tip had the common ancestor as its merge base');
  });

  it('a tip that is the common ancestor itself reaches nothing listed: 0 ahead, every listed base commit behind', () => {
    const start = git(repo, 'rev-parse', 'HEAD');
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}');
    const b1 = git(repo, 'commit-tree', tree, '-m', 'b1', '-p', start);
    const b2 = git(repo, 'commit-tree', tree, '-m', 'b2', '-p', b1);
    const listing = git(repo, 'rev-list', '--topo-order', '--parents', b2, start, `^${start}`);
    assert.deepEqual(relateTips(listing, b2, [start], start).get(start), { ahead: 0, behind: 2, mergeBase: start });
    // And the base being the ancestor: only ahead.
    const back = git(repo, 'rev-list', '--topo-order', '--parents', start, b2, `^${start}`);
    assert.deepEqual(relateTips(back, start, [b2], start).get(b2), { ahead: 2, behind: 0, mergeBase: start });
  });

  it('keeps tips apart past 32 of them (several words of bits per commit)', () => {
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}');
    const chain = [git(repo, 'rev-parse', 'HEAD')];
    for (let i = 1; i <= 70; i++) chain.push(git(repo, 'commit-tree', tree, '-m', `n${i}`, '-p', chain[i - 1]));
    const base = chain[35];
    const listing = git(repo, 'rev-list', '--topo-order', '--parents', base, ...chain, `^${chain[0]}`);
    const relations = relateTips(listing, base, chain, chain[0]);
    chain.forEach((tip, i) => {
      assert.deepEqual(relations.get(tip), { ahead: Math.max(0, i - 35), behind: Math.max(0, 35 - i), mergeBase: i < 35 ? tip : base }, `tip ${i}`);
    });
  });
});
