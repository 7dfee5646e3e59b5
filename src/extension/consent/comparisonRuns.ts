// The consent view's part for how many runs a comparison makes: modes × measured runs (+ the warm-up), each sending
// the parts above (the setup first). The count comes from durabilityLens.compare.* — settings a workspace may set —
// and a development connection skips the Switch and Compare dialog that states it, so the consent view says it and
// remembers it under its own key: a confirmation of 5 runs never covers 81. vscode-free.
import { repeatingPart, type ConsentPart } from './consentPart';
import { l10n } from '../l10n';

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
  const modes = count.modes.join(', ');
  const plan = count.warmup ? l10n.t('{0} × {1} + 1 warm-up', modes, count.repetitions) : l10n.t('{0} × {1}', modes, count.repetitions);
  // Whole sentences, one per case: no translated fragment spliced into another.
  const text = levels
    ? (count.warmup
      ? l10n.t('The parts above run {0} times in all: {1} modes × {2} measured run(s) + 1 warm-up run, at each of the {3} sweep levels, alternating the modes (the setup part, if any, before each run).', total, count.modes.length, count.repetitions, levels.length)
      : l10n.t('The parts above run {0} times in all: {1} modes × {2} measured run(s), at each of the {3} sweep levels, alternating the modes (the setup part, if any, before each run).', total, count.modes.length, count.repetitions, levels.length))
    : (count.warmup
      ? l10n.t('The parts above run {0} times in all: {1} modes × {2} measured run(s) + 1 warm-up run, alternating the modes (the setup part, if any, before each run).', total, count.modes.length, count.repetitions)
      : l10n.t('The parts above run {0} times in all: {1} modes × {2} measured run(s), alternating the modes (the setup part, if any, before each run).', total, count.modes.length, count.repetitions));
  const sent = parts.filter((p) => p.key === 'run' || p.key === 'call');
  return [...parts, repeatingPart(sent, l10n.t('Comparison runs (durabilityLens.compare.*: {0})', plan), text, total)];
}
