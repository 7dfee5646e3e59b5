// The consent view's part for a profile that also measures the per-statement trace's cost (issue 28): the workload
// then runs 2×N times, so its DML runs 2×N times — shown in the plan the user confirms, and remembered under its own
// key, so a confirmation of a single run never covers it.
import { traceOverheadPlanText } from '../../profile/traceOverheadRun';
import { repeatingPart, type ConsentPart } from './consentPart';
import { l10n } from '../l10n';

/**
 * The parts with the alternation's plan added, and the note said before the text; unchanged when not asked for.
 * `askedBy`: the user's setting, or an agent tool's traceOverheadRuns input (lm/lmTools.ts) — the view says which.
 */
export function withTraceOverheadPlan(parts: readonly ConsentPart[], runsEach: number | undefined, askedBy: 'setting' | 'agent' = 'setting'): { parts: ConsentPart[]; notes: string[] } {
  if (runsEach === undefined) return { parts: [...parts], notes: [] };
  const total = runsEach * 2;
  const sent = parts.filter((p) => p.key === 'run' && !p.ownLines);
  const plan = repeatingPart(
    sent,
    askedBy === 'agent'
      ? l10n.t('Trace-overhead measurement (asked by the agent: traceOverheadRuns: {0})', runsEach)
      : l10n.t('Trace-overhead measurement (durabilityLens.xe.traceOverheadRuns: {0})', runsEach),
    l10n.t('The parts above run {0} times in all: {1} with the per-statement trace and {1} without, alternating (the setup part, if any, before each run).', total, runsEach),
    total,
  );
  return {
    parts: [...parts, plan],
    notes: [
      askedBy === 'agent'
        ? l10n.t("This profile {0}: the agent's tool call asked for it (traceOverheadRuns: {1}). Decline to run nothing; the agent can ask again without traceOverheadRuns to run the workload once.", traceOverheadPlanText(runsEach), runsEach)
        : l10n.t('This profile {0}: the setting durabilityLens.xe.traceOverheadRuns is {1}. Set it to 0 to run the workload once.', traceOverheadPlanText(runsEach), runsEach),
    ],
  };
}
