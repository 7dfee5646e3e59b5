// May `durability-lens profile` send this workload? The extension's rule (consent gate): a workload in which every
// statement only reads or controls the session runs without a question; one that changes (or may change) data or
// schema runs only once the user has seen what changes and said yes. On the command line the yes is `--yes`, a "y"
// at the terminal's question, or a named connection marked "development": true (as for compare). Without a terminal
// to ask (CI, a pipe) and without --yes, nothing runs and the command exits 5 saying how to go ahead.
// The question is decided by the same classifier as the extension's (src/tsql/classify.ts): when unsure it counts as
// a change, so an unreadable statement is asked about, never run unasked.
import { changesText, classifyBatch, type ChangingStatement } from '../../tsql';
import type { ChosenBatch } from '../../profile/workloadChoice';
import { terminalField } from '../terminalText';
import { QuestionInterruptedError, terminalAsk, type AskYesNo } from './recovery';

/** Every statement of the batches that changes or may change data or schema, at its document line. */
export function workloadChanges(batches: readonly ChosenBatch[]): ChangingStatement[] {
  return batches.filter((b) => !b.empty).flatMap((b) => classifyBatch(b.text, b.firstLine).changes);
}

export interface WorkloadConsentInput {
  changes: readonly ChangingStatement[];
  /** --yes */
  yes: boolean;
  /** The named connection is marked "development": true. */
  development: boolean;
  /** How often the workload's statements run ("once", "on 4 connections at once", "6 times (--trace-overhead 3)"). */
  runs: string;
  ask?: AskYesNo | undefined;
  stderr: (text: string) => void;
}

/** How often a profile sends the workload, for the consent line. */
export function profileRunsText(sessions: number | null, traceOverhead: number | null): string {
  const once = sessions !== null && sessions > 1 ? `on ${sessions} connections at once` : 'once';
  return traceOverhead !== null ? `${once}, then ${2 * traceOverhead} more times (--trace-overhead ${traceOverhead})` : once;
}

/**
 * Says on stderr what the workload changes and whether it may run; true when it may. A workload that changes nothing
 * runs without a question (and the line says why none was asked).
 */
export async function workloadConsent(input: WorkloadConsentInput): Promise<boolean> {
  const { changes, stderr } = input;
  if (changes.length === 0) {
    stderr('Consent:  not asked: no statement of the workload changes data or schema (the rule of the extension\'s consent view).\n');
    return true;
  }
  stderr(`Changes:  the workload changes data or schema, and runs ${input.runs}: ${terminalField(changesText(changes))}.\n`);
  if (input.yes) {
    stderr('Consent:  confirmed by --yes.\n');
    return true;
  }
  if (input.development) {
    stderr('Consent:  confirmed without --yes: the connection is marked as a development server.\n');
    return true;
  }
  const answer = (input.ask ?? terminalAsk)('Run it?');
  let yes = false;
  try {
    yes = answer === null ? false : await answer;
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw new QuestionInterruptedError('The workload was not run.');
    throw err;
  }
  if (yes) return true;
  stderr(answer === null
    ? 'Not confirmed: nothing was run. There is no terminal to ask on; re-run with --yes to run it (or mark the named connection "development": true in the settings).\n'
    : 'Not confirmed: nothing was run.\n');
  return false;
}
