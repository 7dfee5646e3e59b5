// The argument of the "Profile EXEC…" / "Compare durability…" lenses on CREATE/ALTER PROCEDURE: which procedure,
// its parameter list as the language server read it, and where its definition sits in the document. Plain data
// (structurally the same as src/tsql's ProcedureParameter), checked on arrival since commands take anything.
import type { TargetRange } from './commands';

export interface ProcedureParameterArg {
  /** With the `@`. */
  name: string;
  type: { schema: string | null; name: string; length: number | 'max' | null; precision: number | null; scale: number | null; text: string };
  default: { kind: 'string' | 'number' | 'null' | 'other'; text: string; value: string | null } | null;
  output: boolean;
  readonly: boolean;
  /** Why no value can be typed in for it, null when one can. */
  notPromptable: string | null;
}

export interface ProcedureTarget {
  uri: string;
  version: number;
  /** As written, brackets removed, parts joined with dots: `dbo.usp_load`. */
  name: string;
  /** The name's parts (brackets removed), for quoting: `['dbo', 'usp_load']`. */
  nameParts: string[];
  /** `CREATE PROCEDURE p;2` → 2. */
  number: number | null;
  parameters: ProcedureParameterArg[];
  /** Why the lens can't prompt for this procedure, null when it can. */
  notPromptable: string | null;
  /** The whole CREATE/ALTER statement (its batch, up to the GO). */
  range: TargetRange;
  batchIndex: number;
}

function isRangeLike(value: unknown): value is TargetRange {
  const v = value as TargetRange | null;
  const pos = (p: unknown) => typeof p === 'object' && p !== null && Number.isInteger((p as { line: number }).line) && Number.isInteger((p as { character: number }).character);
  return typeof v === 'object' && v !== null && pos(v.start) && pos(v.end);
}

function isParameter(value: unknown): value is ProcedureParameterArg {
  const v = value as ProcedureParameterArg | null;
  if (typeof v !== 'object' || v === null || typeof v.name !== 'string' || !v.name.startsWith('@')) return false;
  const t = v.type;
  if (typeof t !== 'object' || t === null || typeof t.name !== 'string' || typeof t.text !== 'string') return false;
  if (!(t.schema === null || typeof t.schema === 'string')) return false;
  if (!(t.length === null || t.length === 'max' || Number.isInteger(t.length))) return false;
  if (!(t.precision === null || Number.isInteger(t.precision)) || !(t.scale === null || Number.isInteger(t.scale))) return false;
  const d = v.default;
  if (d !== null && (typeof d !== 'object' || typeof d.text !== 'string' || !(d.value === null || typeof d.value === 'string'))) return false;
  return typeof v.output === 'boolean' && typeof v.readonly === 'boolean' && (v.notPromptable === null || typeof v.notPromptable === 'string');
}

export function isProcedureTarget(value: unknown): value is ProcedureTarget {
  const v = value as ProcedureTarget | null;
  if (typeof v !== 'object' || v === null) return false;
  return (
    typeof v.uri === 'string' && Number.isInteger(v.version) && typeof v.name === 'string' && v.name.length > 0 &&
    Array.isArray(v.nameParts) && v.nameParts.length > 0 && v.nameParts.every((p) => typeof p === 'string') &&
    (v.number === null || Number.isInteger(v.number)) &&
    Array.isArray(v.parameters) && v.parameters.every(isParameter) &&
    (v.notPromptable === null || typeof v.notPromptable === 'string') &&
    isRangeLike(v.range) && Number.isInteger(v.batchIndex)
  );
}

/** What procedureTargetOf needs of a routine (structurally src/tsql's RoutineInfo, which shared may not import). */
export interface ProcedureRoutineLike {
  name: string;
  number: number | null;
  range: TargetRange;
  batchIndex: number;
  signature?: { nameParts: string[]; parameters: ProcedureParameterArg[]; notPromptable: string | null };
}

/** The lens argument for a procedure routine (the language server and the extension build it the same way). */
export function procedureTargetOf(routine: ProcedureRoutineLike, uri: string, version: number): ProcedureTarget {
  const signature = routine.signature ?? { nameParts: [routine.name], parameters: [], notPromptable: null };
  return {
    uri,
    version,
    name: routine.name,
    nameParts: signature.nameParts,
    number: routine.number,
    parameters: signature.parameters.map((p) => ({ name: p.name, type: p.type, default: p.default, output: p.output, readonly: p.readonly, notPromptable: p.notPromptable })),
    notPromptable: signature.notPromptable,
    range: routine.range,
    batchIndex: routine.batchIndex,
  };
}
