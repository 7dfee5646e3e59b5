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

/** How a code's sample is drawn: clusters (rounds 1–4) or loops with a per-repository cap (round 5 on). */
export type Sampler = 'clusters' | 'loops';

/** Loops (or lone statements) drawn as one: the clusters found in them, with the one to label. */
export interface SampleUnit<T> {
  /** The clusters in it, lowest priority first; the first is the one labelled. */
  items: T[];
  /** The repository of the first item: what the per-repository cap counts. */
  repository: string;
  /** The lowest priority of its items: a unit's place depends only on its own clusters' keys. */
  priority: string;
}

/**
 * Clusters grouped into the loops they are found in: clusters sharing an outermost loop are one unit, and so are the
 * loops a cluster's copies sit in (the same loop in five schema versions is one loop). A cluster found outside any
 * loop is a unit of its own. Units come out in priority order (samplingPriority of their items' keys).
 */
export function loopUnits<T>(items: readonly T[], describe: (item: T) => { key: string; repository: string; loops: readonly string[] }, seed: number): SampleUnit<T>[] {
  const parent = items.map((_, i) => i);
  const root = (i: number): number => { while (parent[i] !== i) { parent[i] = parent[parent[i]!]!; i = parent[i]!; } return i; };
  const firstIn = new Map<string, number>();
  const described = items.map((item, i) => {
    const d = describe(item);
    for (const loop of d.loops) {
      const seen = firstIn.get(loop);
      if (seen === undefined) firstIn.set(loop, i); else parent[root(i)] = root(seen);
    }
    return { item, repository: d.repository, priority: samplingPriority(seed, d.key) };
  });
  const groups = new Map<number, typeof described>();
  described.forEach((d, i) => {
    const r = root(i);
    const list = groups.get(r);
    if (list) list.push(d); else groups.set(r, [d]);
  });
  const byPriority = (a: { priority: string }, b: { priority: string }): number => (a.priority < b.priority ? -1 : a.priority > b.priority ? 1 : 0);
  return [...groups.values()].map((members) => {
    members.sort(byPriority);
    return { items: members.map((m) => m.item), repository: members[0]!.repository, priority: members[0]!.priority };
  }).sort(byPriority);
}

/**
 * Up to `n` units in priority order, at most ceil(n / R) from any one repository (R: the repositories that have units).
 * When every repository under the cap is exhausted before `n` are drawn, the cap rises by ceil(left / repositories
 * with units left) and the draw goes on in priority order: a repository gives more than its share only when the
 * others have nothing left to give.
 */
export function drawPerRepository<T>(units: readonly SampleUnit<T>[], n: number): SampleUnit<T>[] {
  const taken = new Set<number>();
  const perRepository = new Map<string, number>();
  let cap = Math.ceil(n / Math.max(1, new Set(units.map((u) => u.repository)).size));
  while (taken.size < Math.min(n, units.length)) {
    for (let i = 0; i < units.length && taken.size < n; i++) {
      const u = units[i]!;
      const count = perRepository.get(u.repository) ?? 0;
      if (taken.has(i) || count >= cap) continue;
      taken.add(i);
      perRepository.set(u.repository, count + 1);
    }
    const left = new Set(units.filter((_, i) => !taken.has(i)).map((u) => u.repository)).size;
    if (left > 0) cap += Math.ceil((n - taken.size) / left);
  }
  return units.filter((_, i) => taken.has(i));
}
