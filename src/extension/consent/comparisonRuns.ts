// The consent view's part for how many runs a comparison makes: modes × measured runs (+ the warm-up), each sending
// the parts above (the setup first). The count comes from durabilityLens.compare.* — settings a workspace may set —
// and a development connection skips the Switch and Compare dialog that states it, so the consent view says it and
// remembers it under its own key: a confirmation of 5 runs never covers 81. vscode-free.
import type { ConsentPart } from './consentPart';

/** What the comparison will run, as read when the consent view is built (and then passed to the run unchanged). */
export interface ComparisonRunCount {
  modes: readonly string[];
  repetitions: number;
  warmup: boolean;
  /** A concurrency sweep's levels: the whole plan runs once per level. */
  sessions?: readonly number[] | undefined;
}

/** Runs of one plan: every mode `repetitions` times, and one warm-up run. */
export function comparisonRunTotal(c: ComparisonRunCount): number {
  return c.modes.length * c.repetitions + (c.warmup ? 1 : 0);
}

/** The parts with the comparison's run count added; unchanged for a profile (`count` undefined). */
export function withComparisonRuns(parts: readonly ConsentPart[], count: ComparisonRunCount | undefined): ConsentPart[] {
  if (!count) return [...parts];
  const perPlan = comparisonRunTotal(count);
  const levels = count.sessions && count.sessions.length > 0 ? count.sessions : null;
  const total = levels ? perPlan * levels.length : perPlan;
  const sent = parts.filter((p) => p.key === 'run' || p.key === 'call');
  // The same changes as the parts it repeats (null: not known, like theirs), so a read-only script still asks nothing.
  const changes = sent.some((p) => p.changes === null) ? null : sent.flatMap((p) => p.changes ?? []);
  const plan = `${count.modes.join(', ')} × ${count.repetitions}${count.warmup ? ' + 1 warm-up' : ''}`;
  return [...parts, {
    heading: `Comparison runs (durabilityLens.compare.*: ${plan})`,
    text: `The parts above run ${total} times in all: ${count.modes.length} modes × ${count.repetitions} measured run(s)${count.warmup ? ' + 1 warm-up run' : ''}${levels ? `, at each of the ${levels.length} sweep levels` : ''}, alternating the modes (the setup part, if any, before each run).`,
    firstLine: null,
    // Its text names the count, so the key differs per count; `repeat` would read as GO n.
    repeat: 1,
    changes,
    key: 'run',
    summary: `repeats everything above ${total} times`,
    ownLines: true,
  }];
}
