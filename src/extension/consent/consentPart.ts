// One part of what a run sends, as the consent view shows it (setup, measured, a deploy, a procedure call, a plan that
// repeats them): its exact text, where it is in the document, what in it changes data or schema, and the key a
// confirmation remembers it under. The type every part builder (consentView, procedureParts, sessionPlan…) returns.
import type { ChangingStatement } from '../../tsql';
import { l10n } from '../l10n';

export type ConsentKeyKind = 'run' | 'deploy' | 'call';

export interface ConsentPart {
  /** "Setup — runs first, unmeasured", "Deploy", "Procedure call". */
  heading: string;
  /** The exact text sent (or, for a call, the definition it runs). */
  text: string;
  /** 0-based document line of the text's first line; null for text that is not in the document. */
  firstLine: number | null;
  repeat: number;
  /** What changes data or schema; null = not known (counts as a change, `unknown` says why). */
  changes: ChangingStatement[] | null;
  unknown?: string;
  /** The key kind it is remembered under; null: shown for context only, not part of the confirmation. */
  key: ConsentKeyKind | null;
  /** Said after the heading instead of the changes (a procedure call: "runs the definition below"). */
  summary?: string;
  /** Its line numbers count within its own text (a deployed definition), not the document's. */
  ownLines?: boolean;
}

/**
 * A part that says how often the parts `sent` run again (a comparison's runs, a trace-overhead plan): the same changes as
 * they have (null when any is not known, like theirs), so a read-only script still asks nothing. Its text names the
 * count, so its key differs per count; `repeat` would read as GO n.
 */
export function repeatingPart(sent: readonly ConsentPart[], heading: string, text: string, total: number): ConsentPart {
  const changes = sent.some((p) => p.changes === null) ? null : sent.flatMap((p) => p.changes ?? []);
  return { heading, text, firstLine: null, repeat: 1, changes, key: 'run', summary: l10n.t('repeats everything above {0} times', total), ownLines: true };
}
