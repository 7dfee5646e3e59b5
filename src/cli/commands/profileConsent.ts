// May `durability-lens profile` send this workload? The extension's rule (consent gate): a workload in which every
// statement only reads or controls the session runs without a question; one that changes (or may change) data or
// schema runs only once the user has seen what changes and said yes. On the command line the yes is `--yes`, a "y"
// at the terminal's question, or a named connection marked "development": true (as for compare). Without a terminal
// to ask (CI, a pipe) and without --yes, nothing runs and the command exits 5 saying how to go ahead.
// The question is decided by the same classifier as the extension's (src/tsql/classify.ts): when unsure it counts as
// a change, so an unreadable statement is asked about, never run unasked.
import { changesText, classifyBatch, type ChangingStatement } from '../../tsql';
import type { ChosenBatch } from '../../profile/workloadChoice';
import { SetupMarkerError, splitByLineMarkers } from '../../profile/setupMarkers';
import { terminalField } from '../terminalText';
import { askYes, QuestionInterruptedError, type AskYesNo } from './recovery';

/**
 * Every statement of the batches that changes or may change data or schema, at its document line; one in a batch that
 * `GO n` repeats says so ("INSERT ×5 by GO 5"): "runs once" is the script, not that statement.
 * What is classified is what is sent: the batches as written and, where the line markers split a batch, its setup and
 * measured parts, which the run sends as batches of their own (a procedure name first in such a part runs it, though
 * the whole batch read `SELECT 1 usp_wipe`, a column alias). Markers that do not pair leave the batches as written
 * (the run refuses them before sending anything).
 */
export function workloadChanges(batches: readonly ChosenBatch[]): ChangingStatement[] {
  const written = batches.filter((b) => !b.empty);
  let parts: readonly ChosenBatch[] = [];
  try {
    const split = splitByLineMarkers(written);
    parts = [...split.setup, ...split.measured];
  } catch (err) {
    if (!(err instanceof SetupMarkerError)) throw err;
  }
  const seen = new Set<string>();
  const changes = [...written, ...parts].flatMap((b) => classifyBatch(b.text, b.firstLine).changes.map((c) => (b.repeat > 1 ? { ...c, what: `${c.what} ×${b.repeat} by GO ${b.repeat}` } : c)));
  return changes.filter((c) => !seen.has(`${c.line}:${c.what}`) && seen.add(`${c.line}:${c.what}`)).sort((a, b) => a.line - b.line);
}

export interface WorkloadConsentInput {
  changes: readonly ChangingStatement[];
  /** --yes */
  yes: boolean;
  /** The named connection is marked "development": true. */
  development: boolean;
  /** The settings entry --connection named, or null (a connection string): the refusal says it is not marked. */
  named?: string | null | undefined;
  /** How often the workload's statements run ("once", "on 4 connections at once (a setup part once, before them)", "6 times (--trace-overhead 3)"). */
  runs: string;
  ask?: AskYesNo | undefined;
  /** The command's stop signal: a question still waiting ends when it aborts (false; the caller says it stopped). */
  signal?: AbortSignal | undefined;
  stderr: (text: string) => void;
}

/**
 * How often a profile sends the workload, for the consent line. --trace-overhead N runs it 2×N times in all, the
 * profile's own run being the first of them (traceOverheadRun.ts); it is refused with --sessions.
 */
export function profileRunsText(sessions: number | null, traceOverhead: number | null): string {
  if (traceOverhead !== null) return `${2 * traceOverhead} times (--trace-overhead ${traceOverhead})`;
  // The setup part runs once, on one connection, before the N (profileRun.ts): its DROP TABLE is not run N times.
  return sessions !== null && sessions > 1 ? `on ${sessions} connections at once (a setup part once, before them)` : 'once';
}

/** The `Changes:` line: what the workload changes, and how often it runs (profile's question, compare's plan). */
export function changesLine(changes: readonly ChangingStatement[], runs: string): string {
  return `Changes:  the workload changes data or schema, and runs ${runs}: ${terminalField(changesText(changes))}.\n`;
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
  stderr(changesLine(changes, input.runs));
  if (input.yes) {
    stderr('Consent:  confirmed by --yes.\n');
    return true;
  }
  if (input.development) {
    stderr('Consent:  confirmed without --yes: the connection is marked as a development server.\n');
    return true;
  }
  // Ctrl+C: "nothing was restored" would be untrue after a restore confirmed at the question before.
  const answer = await askYes(input.ask, 'Run it?', input.signal, () => new QuestionInterruptedError('', 'the workload was not run; nothing of it was sent.'));
  if (answer === true) return true;
  if (input.signal?.aborted) return false; // a stop signal ended the question: the command says it stopped
  // A named connection was looked at: say that it is not marked, rather than "use one that is" (it is one).
  const development = input.named
    ? `the connection "${terminalField(input.named)}" is not marked "development": true in the settings, which would run it without asking`
    : 'or use a --connection NAME whose entry in the settings is marked "development": true';
  stderr(answer === 'no-terminal'
    ? `Not confirmed: nothing was run. There is no terminal to ask on (the question needs both stdin and stderr on a terminal); re-run with --yes to run it (${development}).\n`
    : 'Not confirmed: nothing was run.\n');
  return false;
}
