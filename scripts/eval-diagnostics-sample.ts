// Seeded randomness for the held-out evaluation (docs/analyze.md, "Measured precision"): the repository split and the
// order in which findings are sampled. Both must come out the same on every machine and every run, so nothing here
// reads the clock or Math.random.

import { createHash } from 'node:crypto';

/** mulberry32: a small 32-bit PRNG, good enough to shuffle a list reproducibly. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle of a copy of `items` driven by `seed`. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export type Split = 'tuning' | 'heldout';

/**
 * Splits repositories by name: sorted, shuffled with `seed`, the first half (rounded up) for tuning, the rest held out.
 * Sorting first makes the split depend only on the set of names and the seed, not on the order they were listed in.
 */
export function splitRepositories(names: readonly string[], seed: number): Record<string, Split> {
  const shuffled = seededShuffle([...names].sort(), seed);
  const tuning = Math.ceil(shuffled.length / 2);
  const out: Record<string, Split> = {};
  shuffled.forEach((name, i) => { out[name] = i < tuning ? 'tuning' : 'heldout'; });
  return out;
}

/**
 * The sampling priority of a cluster: a hash of the seed and the cluster's key. Each cluster's place depends on its
 * own key only, so a cluster appearing or disappearing (a rule changed) does not reshuffle the others, and labels
 * already given stay in the sample.
 */
export function samplingPriority(seed: number, key: string): string {
  return createHash('sha256').update(`${seed}\0${key}`).digest('hex');
}

/** The `n` items with the lowest priority (all of them when fewer). */
export function sampleByPriority<T>(items: readonly T[], keyOf: (item: T) => string, seed: number, n: number): T[] {
  return items
    .map((item) => ({ item, priority: samplingPriority(seed, keyOf(item)) }))
    .sort((a, b) => (a.priority < b.priority ? -1 : a.priority > b.priority ? 1 : 0))
    .slice(0, n)
    .map((x) => x.item);
}
