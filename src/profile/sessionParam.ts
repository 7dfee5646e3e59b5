// The `-- durability-lens: session-param @name` marker: a workload that needs a per-session variation (its own key
// range) names a variable it uses undeclared; a concurrency sweep fills it with the session number 1..N as a typed
// int parameter (sp_executesql), never by editing the text and never from @@SPID (which differs per run).
import type { WorkloadBatch } from '../db/types';
import { lex, TokenKind } from '../tsql';
import { lineComments, SetupMarkerError } from './setupMarkers';

export const SESSION_PARAM_MARKER = 'durability-lens: session-param';

const MARKER_LINE = /^\s*--\s*durability-lens:\s*session-param\b(.*)$/i;
/** A T-SQL local variable name: @ then a letter, _ or # … (regular identifier rules, kept ASCII here). */
const VARIABLE = /^@[A-Za-z_][A-Za-z0-9_@#$]*$/;

/**
 * The variable named by the marker (e.g. '@session'), or null when no batch has one. The marker is a line comment
 * alone on its line that stands in code: the same text inside a block comment, a string literal or a quoted identifier
 * is text (commented-out code or a dynamic SQL string must not change how the script runs). A malformed marker, or two
 * markers naming different variables, is a SetupMarkerError naming the document line.
 */
export function sessionParamOf(batches: readonly WorkloadBatch[]): string | null {
  let found: { name: string; line: number } | null = null;
  for (const batch of batches) {
    const comments = lineComments(batch.text);
    let offset = 0;
    batch.text.split('\n').forEach((raw, i) => {
      const start = offset + raw.length - raw.trimStart().length;
      offset += raw.length + 1;
      const m = comments.has(start) ? MARKER_LINE.exec(raw.replace(/\r$/, '')) : null;
      if (!m) return;
      const line = batch.firstLine + i + 1;
      const name = m[1]!.trim();
      if (!VARIABLE.test(name)) {
        throw new SetupMarkerError(`Line ${line}: '-- ${SESSION_PARAM_MARKER}' needs one variable name such as @session, not '${name}'.`);
      }
      if (found && found.name.toLowerCase() !== name.toLowerCase()) {
        throw new SetupMarkerError(`Line ${line}: a second '-- ${SESSION_PARAM_MARKER}' names ${name}, but line ${found.line} named ${found.name}; use one variable.`);
      }
      found ??= { name, line };
    });
  }
  return found ? (found as { name: string }).name : null;
}

/**
 * The batches as session `sessionNumber` (1-based) runs them: the marker's variable as a typed int parameter, given
 * only to the batches that name it. A batch with a parameter runs through sp_executesql, whose scope ends with it
 * (a #temp table, SET option or USE inside it does not carry to the next batch: Learn, "sp_executesql" and
 * "CREATE TABLE", temporary tables), so the others stay plain batches that behave as the script was written.
 */
export function withSessionParam<B extends WorkloadBatch>(batches: readonly B[], variable: string | null, sessionNumber: number): B[] {
  if (variable === null) return [...batches];
  const parameter = { name: variable.slice(1), type: 'int' as const, value: sessionNumber };
  return batches.map((b) => (usesVariable(b.text, variable) ? { ...b, parameters: [...(b.parameters ?? []), parameter] } : { ...b }));
}

/**
 * Whether the batch's code names the variable (a Variable token, not @session2 nor @@session), case-insensitive like
 * T-SQL variable names; the name in a comment or a string literal is no use, and such a batch stays a plain batch.
 */
function usesVariable(text: string, variable: string): boolean {
  const tokens = lex(text);
  const wanted = variable.toLowerCase();
  for (let i = 0; i < tokens.count; i++) {
    if (tokens.kinds[i] === TokenKind.Variable && text.slice(tokens.starts[i], tokens.ends[i]).toLowerCase() === wanted) return true;
  }
  return false;
}
