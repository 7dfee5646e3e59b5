// The consent view's part for a profile that also measures the per-statement trace's cost (issue 28): the workload
// then runs 2×N times, so its DML runs 2×N times — shown in the plan the user confirms, and remembered under its own
// key, so a confirmation of a single run never covers it.
import { traceOverheadPlanText } from '../../profile/traceOverheadRun';
import type { ConsentPart } from './consentPart';

/**
 * The parts with the alternation's plan added, and the note said before the text; unchanged when not asked for.
 * `askedBy`: the user's setting, or an agent tool's traceOverheadRuns input (lm/lmTools.ts) — the view says which.
 */
export function withTraceOverheadPlan(parts: readonly ConsentPart[], runsEach: number | undefined, askedBy: 'setting' | 'agent' = 'setting'): { parts: ConsentPart[]; notes: string[] } {
  if (runsEach === undefined) return { parts: [...parts], notes: [] };
  const total = runsEach * 2;
  const sent = parts.filter((p) => p.key === 'run' && !p.ownLines);
  // The same changes as the parts it repeats (null: not known, like theirs), so a read-only script still asks nothing.
  const changes = sent.some((p) => p.changes === null) ? null : sent.flatMap((p) => p.changes ?? []);
  const plan: ConsentPart = {
    heading: `Trace-overhead measurement (${askedBy === 'agent' ? 'asked by the agent: traceOverheadRuns' : 'durabilityLens.xe.traceOverheadRuns'}: ${runsEach})`,
    text: `The parts above run ${total} times in all: ${runsEach} with the per-statement trace and ${runsEach} without, alternating (the setup part, if any, before each run).`,
    firstLine: null,
    // Its text names the count, so the key differs per plan; `repeat` would read as GO n.
    repeat: 1,
    changes,
    key: 'run',
    summary: `repeats everything above ${total} times`,
    ownLines: true,
  };
  return {
    parts: [...parts, plan],
    notes: [
      askedBy === 'agent'
        ? `This profile ${traceOverheadPlanText(runsEach)}: the agent's tool call asked for it (traceOverheadRuns: ${runsEach}). Decline to run nothing; the agent can ask again without traceOverheadRuns to run the workload once.`
        : `This profile ${traceOverheadPlanText(runsEach)}: the setting durabilityLens.xe.traceOverheadRuns is ${runsEach}. Set it to 0 to run the workload once.`,
    ],
  };
}
