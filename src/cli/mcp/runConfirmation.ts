// Each run an agent asks the MCP server for is shown to the user and confirmed by them before anything is sent: the
// server asks through the client (MCP elicitation, form mode: the client shows our message and a yes/no field), with
// the T-SQL that will run, numbered as in the file, where it runs and what else the run creates or changes. A client
// that cannot ask is refused, unless the user started the server with --no-confirm (their standing consent for every
// run, said in the help and docs/agents.md). No MCP types here: server.ts speaks the protocol.
import { withVisibleControls } from '../../shared/visibleText';
import type { SelectedWorkload } from '../../agent/workloadSelection';

/** The user's answer to one run's confirmation; 'unsupported': the client cannot ask (no elicitation capability). */
export type RunAnswer = 'confirmed' | 'declined' | 'unsupported';

/** Asks the user, through the MCP client, whether the run described by `message` may start. */
export type AskUser = (message: string) => Promise<RunAnswer>;

/** A workload longer than this is not put in a confirmation (a client's form is no place to review it): refused. */
export const MAX_CONFIRMED_LINES = 2_000;

/** The schema of the answer the client's form asks for: one required yes/no. */
export const RUN_CONFIRMATION_SCHEMA = {
  type: 'object' as const,
  properties: { run: { type: 'boolean' as const, title: 'Run it', description: 'Yes: send the T-SQL above now. No: nothing is sent.' } },
  required: ['run'],
};

/** "  12 │ text" for each line of a batch (file line numbers, 1-based); active characters as visible escapes. */
function numberedLines(text: string, firstLine: number): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  while (lines.length > 1 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const width = String(firstLine + lines.length).length;
  return lines.map((line, i) => `${String(firstLine + i + 1).padStart(width)} │ ${withVisibleControls(line)}`);
}

/** How many lines the confirmation would show for `workload`. */
export function workloadLineCount(workload: SelectedWorkload): number {
  return workload.batches.reduce((n, b) => n + b.text.split(/\r\n|\n|\r/).length, 0);
}

/**
 * The confirmation's text: what is asked and where, the batches exactly as they will be sent (setup first, each with
 * its line numbers and GO count), then `plan` (the event sessions, or the comparison's ALTERs and restore).
 */
export function runConfirmationText(headline: string, workload: SelectedWorkload, plan: string): string {
  const parts = [`${headline} Nothing has run yet.`, '', `The T-SQL sent (${withVisibleControls(workload.description)}${workload.setupDescription ? `; ${withVisibleControls(workload.setupDescription)} run first, unmeasured` : ''}):`];
  for (const b of workload.batches) {
    if (b.empty) continue;
    parts.push('', `── batch ${b.index + 1}${b.repeat > 1 ? `, sent ${b.repeat} times (GO ${b.repeat})` : ''} ──`, ...numberedLines(b.text, b.firstLine));
  }
  parts.push('', plan);
  return parts.join('\n');
}

export const DECLINED = 'Declined: the user did not confirm this run in the MCP client\'s confirmation. Nothing was run and nothing was changed.';

export const CANNOT_ASK =
  'Refused: this MCP client cannot ask the user to confirm a run (it did not declare the MCP elicitation capability), and every run needs the user\'s confirmation of the T-SQL it sends. Nothing was run and nothing was changed. A user who accepts runs without a confirmation each time restarts the server with `--allow-run --no-confirm` (docs/agents.md).';

export function tooLongToConfirm(lines: number): string {
  return `Refused: the workload has ${lines.toLocaleString('en-US')} lines, more than the ${MAX_CONFIRMED_LINES.toLocaleString('en-US')} a confirmation shows; pass startLine and endLine to run a part of the file. Nothing was run and nothing was changed.`;
}
