// What each session of a run sends when the script names a session variable (`-- durability-lens: session-param
// @session`): the batches that use it go through sp_executesql with the variable as a typed int parameter, session k
// sending k (profile/sessionParam.ts); a concurrency sweep (durabilityLens.compare.sessions) runs them on k sessions at
// once at each level. The consent view says both, and a sweep's plan is remembered under its own key, so a
// confirmation of a one-session run never covers a sweep. vscode-free.
import { sessionParamOf } from '../../profile/sessionParam';
import { SetupMarkerError } from '../../profile/setupMarkers';
import type { WorkloadBatch } from '../../db/types';
import type { ConsentPart } from './consentPart';
import { l10n } from '../l10n';

/** The marker's variable ('@session'), or null: none, or a malformed marker (the run then stops before sending anything). */
export function sessionVariableOf(batches: readonly WorkloadBatch[]): string | null {
  try {
    return sessionParamOf(batches);
  } catch (err) {
    if (err instanceof SetupMarkerError) return null;
    throw err;
  }
}

/** "1, 2, 3, 4" or "1, 2, …, 16": the values the sessions of one level send. */
function valuesText(count: number): string {
  return count <= 4 ? Array.from({ length: count }, (_, i) => i + 1).join(', ') : `1, 2, …, ${count}`;
}

/** How a measured batch that uses the variable is sent, said after its heading. */
export function sessionParamText(variable: string, levels: readonly number[] | undefined): string {
  if (!levels || levels.length === 0) return l10n.t('sent through sp_executesql with the parameter {0} int = 1 (one session)', variable);
  return l10n.t('sent by each session of the sweep through sp_executesql with the parameter {0} int = its session number (session k sends k: {1})', variable, valuesText(Math.max(...levels)));
}

/**
 * The sweep's part: at each level, how many sessions run the measured part at once and which value each sends. Its
 * text names the levels, so its key differs per sweep. Null when the comparison is not a sweep.
 */
export function sweepPart(measured: readonly ConsentPart[], variable: string | null, levels: readonly number[] | undefined): ConsentPart | null {
  if (!levels || levels.length === 0) return null;
  const sent = measured.filter((p) => p.key === 'run' || p.key === 'call');
  // The same changes as the parts it repeats (null: not known, like theirs): a read-only script still asks nothing.
  const changes = sent.some((p) => p.changes === null) ? null : sent.flatMap((p) => p.changes ?? []);
  // Whole sentences per case (a translation may order them differently). The text is part of the consent key: a
  // confirmation given in one display language is asked again in another, never assumed.
  const lines = levels.map((n) => {
    if (n === 1) {
      return variable
        ? l10n.t('Level {0}: the measured part runs on session 1 alone; session k sends {1} = k ({2}).', n, variable, valuesText(n))
        : l10n.t('Level {0}: the measured part runs on session 1 alone; every session sends the same text (the script names no session variable).', n);
    }
    return variable
      ? l10n.t('Level {0}: the measured part runs on sessions 1–{0} at the same time, each on its own connection; session k sends {1} = k ({2}).', n, variable, valuesText(n))
      : l10n.t('Level {0}: the measured part runs on sessions 1–{0} at the same time, each on its own connection; every session sends the same text (the script names no session variable).', n);
  });
  return {
    heading: l10n.t('Concurrency sweep (durabilityLens.compare.sessions: {0})', levels.join(', ')),
    text: [
      l10n.t('The comparison runs its plan once per level; in each run the setup part (if any) runs first on one connection, then:'),
      ...lines,
    ].join('\n'),
    firstLine: null,
    repeat: 1,
    changes,
    key: 'run',
    summary: l10n.t('runs the measured part on up to {0} sessions at once', Math.max(...levels)),
    ownLines: true,
  };
}

/** A procedure run's parts with the sweep's part added (a call has no session variable: every session sends it as is). */
export function withSweepPart(parts: readonly ConsentPart[], levels: readonly number[] | undefined): ConsentPart[] {
  const sweep = sweepPart(parts, null, levels);
  return sweep ? [...parts, sweep] : [...parts];
}
