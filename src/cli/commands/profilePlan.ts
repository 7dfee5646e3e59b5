// What `durability-lens profile` (and `record`) will change on the server besides the user's own T-SQL, said on stderr
// before the first statement is sent. The script is the user's file, run as written; the event sessions are ours, and
// a user who was never told would not know that a profile creates, starts and drops a server-level object (outside
// attack unseen42: "Nothing is changed on the server except what the script itself does" while each run created
// Extended Events sessions ON SERVER).
import { oneLineField } from '../../shared/visibleText';

export interface ProfilePlanInput {
  /** What runs, as the user named it (a file path, or a command for record). */
  what: string;
  server: string;
  database: string;
  xe: boolean;
  statements: boolean;
  /** --trace-overhead N, or null. */
  traceOverhead: number | null;
}

/** The event sessions a run creates (`kinds`: what they trace), or that --no-xe leaves them out. */
export function eventSessionsText(xe: boolean, kinds: string, traceOverhead: number | null): string {
  if (!xe) return 'Trace:    none — --no-xe: no Extended Events session is created.';
  const repeated = traceOverhead !== null ? `; measuring the trace's cost, again for each of the ${traceOverhead} runs with the trace` : '';
  return `Trace:    creates Extended Events sessions ON SERVER (ON DATABASE on Azure SQL Database) named durability_lens_… (${kinds}), when the login may, starts, reads, stops and drops them after the run${repeated}; --no-xe leaves them out.`;
}

/** The plan, one field per line; every server- or file-provided string kept on its line. */
export function profilePlanText(input: ProfilePlanInput): string {
  return [
    // Not "the ones that change data included" alone: a script that changes data runs only once confirmed, and a
    // refusal ("nothing was run") right after a plan that said it runs them read as a contradiction.
    `Plan:     runs ${oneLineField(input.what)} as written, on database ${oneLineField(input.database)} on ${oneLineField(input.server)} — every statement in it; if it changes data or schema, only once confirmed (below).`,
    eventSessionsText(input.xe, input.statements ? 'log flushes, and the statements of the workload sessions' : 'log flushes only (--no-statements)', input.traceOverhead),
    'Besides these, nothing on the server is changed (DELAYED_DURABILITY is not switched).',
  ].join('\n');
}

/** `record`'s plan: it runs no T-SQL of the user's, but its log-flush trace is an event session of ours. */
export function recordPlanText(input: { what: string | null; server: string; database: string; xe: boolean }): string {
  const what = input.what === null ? 'a window until Ctrl+C or --duration' : `while ${oneLineField(input.what)} runs (its changes are its own)`;
  return [
    `Plan:     records database ${oneLineField(input.database)} on ${oneLineField(input.server)}, ${what}.`,
    eventSessionsText(input.xe, 'log flushes of the whole database', null),
    'Besides these, nothing on the server is changed by Durability Lens.',
  ].join('\n');
}
