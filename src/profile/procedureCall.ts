// From a procedure lens's parameter list and the values a user typed to a typed RPC call: each value checked against
// its declared type (ranges, lengths, precision/scale, date forms) and converted to the JS value the driver sends as
// that type. Values are data: nothing here builds SQL text that reaches a server (callText is for messages only).
import { quoteName } from '../db/quote';
import type { CallParameter, CallParameterType, ProcedureCall, WorkloadBatch } from '../db/types';
import type { ProcedureParameterArg, ProcedureTarget } from '../shared/procedureTarget';

/** What a user typed for one parameter: a value, NULL, or DEFAULT (leave it out so the procedure's default applies). */
export type ParameterInput = { kind: 'value'; text: string } | { kind: 'null' } | { kind: 'default' };

/**
 * Reads a typed answer: `NULL` and `DEFAULT` (any case, unquoted) are the keywords; a value in single quotes is taken
 * literally without them (`'NULL'` is the four-letter string); anything else is the value as typed.
 */
export function readInput(text: string): ParameterInput {
  const trimmed = text.trim();
  if (/^null$/i.test(trimmed)) return { kind: 'null' };
  if (/^default$/i.test(trimmed)) return { kind: 'default' };
  if (trimmed.length >= 2 && trimmed.startsWith("'") && trimmed.endsWith("'")) return { kind: 'value', text: trimmed.slice(1, -1).replaceAll("''", "'") };
  return { kind: 'value', text };
}

/** How an input is shown back (history, saved sets): the inverse of readInput. */
export function inputText(input: ParameterInput): string {
  if (input.kind === 'null') return 'NULL';
  if (input.kind === 'default') return 'DEFAULT';
  return /^\s*(null|default)\s*$/i.test(input.text) || (input.text.startsWith("'") && input.text.endsWith("'") && input.text.length >= 2) ? `'${input.text.replaceAll("'", "''")}'` : input.text;
}

// Integer ranges (Learn: int, bigint, smallint, and tinyint; money and smallmoney).
const INTEGER_RANGES: Partial<Record<CallParameterType, [bigint, bigint]>> = {
  tinyint: [0n, 255n],
  smallint: [-32768n, 32767n],
  int: [-2147483648n, 2147483647n],
  bigint: [-9223372036854775808n, 9223372036854775807n],
};

const GUID = /^\{?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}?$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

function isCallType(name: string): name is CallParameterType {
  return name in TYPE_NAMES;
}
const TYPE_NAMES: Record<CallParameterType, true> = {
  bit: true, tinyint: true, smallint: true, int: true, bigint: true, decimal: true, numeric: true, money: true, smallmoney: true,
  float: true, real: true, char: true, varchar: true, nchar: true, nvarchar: true, binary: true, varbinary: true, uniqueidentifier: true,
  date: true, time: true, datetime: true, datetime2: true, smalldatetime: true, datetimeoffset: true,
};

/**
 * A Date that also carries the digits past the millisecond: tedious writes time/datetime2/datetimeoffset as
 * ms × 10^(scale-3) + nanosecondDelta × 10^scale, rounded (node_modules/tedious/lib/data-types/temporal.js
 * writeTimeOfDay), so `nanosecondDelta` (seconds, below 0.001) keeps all 7 digits of a 100 ns value.
 */
export type PreciseDate = Date & { nanosecondDelta?: number };

/** A UTC Date from parts, checking the calendar (2026-02-30 is refused, not rolled into March). */
function utcDate(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, fraction = '', offsetMinutes = 0): PreciseDate | null {
  const ms = Number((fraction + '000').slice(0, 3));
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  date.setUTCFullYear(y); // years 0–99 would otherwise land in the 1900s
  const result: PreciseDate = new Date(date.getTime() - offsetMinutes * 60_000);
  // Digits 4–7 of the fraction, in seconds: '.1234567' → 0.0004567 (the division of an integer by 1e7 is the
  // nearest double, and tedious rounds the scaled sum, so the 100 ns unit arrives exactly).
  const beyondMs = fraction.length > 3 ? Number(fraction.slice(3).padEnd(4, '0')) : 0;
  if (beyondMs > 0) result.nanosecondDelta = beyondMs / 1e7;
  return result;
}

/** Refuses fraction digits beyond a time/datetime2/datetimeoffset scale rather than letting them round away. */
function fractionTooLong(parameter: ProcedureParameterArg, fraction: string | undefined): string | null {
  const scale = parameter.type.scale ?? 7;
  const digits = (fraction ?? '').replace(/0+$/, '').length;
  return digits > scale ? `${parameter.type.text} keeps ${scale} fractional second digit(s); this has ${digits}` : null;
}

/** The typed value for one input, or why it does not fit the parameter's type. */
export function parameterValue(parameter: ProcedureParameterArg, text: string): { value: CallParameter['value'] } | { error: string } {
  const type = parameter.type.name;
  if (!isCallType(type) || parameter.notPromptable) return { error: parameter.notPromptable ?? `${parameter.type.text} can't be sent as a typed parameter` };
  const v = text.trim();
  const range = INTEGER_RANGES[type];
  if (range) {
    if (!/^[+-]?\d+$/.test(v)) return { error: `${parameter.type.text} takes a whole number` };
    const n = BigInt(v);
    if (n < range[0] || n > range[1]) return { error: `${parameter.type.text} takes ${range[0]} to ${range[1]}` };
    return { value: type === 'bigint' ? n : Number(n) };
  }
  switch (type) {
    case 'bit': {
      if (/^(1|true)$/i.test(v)) return { value: true };
      if (/^(0|false)$/i.test(v)) return { value: false };
      return { error: 'bit takes 1, 0, true or false' };
    }
    case 'decimal': case 'numeric': {
      const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(v);
      if (!m || (m[2] === '' && (m[3] ?? '') === '')) return { error: `${parameter.type.text} takes a decimal number such as -12.50` };
      const precision = parameter.type.precision ?? 18;
      const scale = parameter.type.scale ?? 0;
      const whole = m[2]!.replace(/^0+(?=\d)/, '');
      const fraction = (m[3] ?? '').replace(/0+$/, '');
      if (fraction.length > scale) return { error: `${parameter.type.text} keeps ${scale} decimal place(s); ${v} has more` };
      if ((whole === '0' ? 0 : whole.length) > precision - scale) return { error: `${parameter.type.text} takes at most ${precision - scale} digit(s) before the point` };
      // The exact text, never Number(v): decimal(38) holds 38 digits, a double about 15–17. Canonical form
      // ([-]digits[.digits]) so the server's string-to-decimal conversion reads it as typed; src/db decides the wire type.
      const digits = whole === '' ? '0' : whole;
      const negative = m[1] === '-' && /[1-9]/.test(digits + fraction);
      return { value: `${negative ? '-' : ''}${digits}${fraction ? `.${fraction}` : ''}` };
    }
    case 'money': case 'smallmoney': case 'float': case 'real': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(v)) return { error: `${parameter.type.text} takes a number` };
      const n = Number(v);
      if (!Number.isFinite(n)) return { error: `${v} is out of range for ${parameter.type.text}` };
      if (type === 'smallmoney' && (n < -214748.3648 || n > 214748.3647)) return { error: 'smallmoney takes -214,748.3648 to 214,748.3647' };
      if (type === 'money' && (n < -922337203685477.5808 || n > 922337203685477.5807)) return { error: 'money takes -922,337,203,685,477.5808 to 922,337,203,685,477.5807' };
      return { value: n };
    }
    case 'char': case 'varchar': case 'nchar': case 'nvarchar': {
      const length = parameter.type.length ?? 1;
      if (length === 'max') return { value: text };
      // SQL Server truncates a too-long procedure argument without an error, so the length is checked here in the
      // type's own unit (Learn: "nchar and nvarchar" — n is in byte-pairs, a supplementary character takes two;
      // "char and varchar" — n is in bytes).
      if (type === 'nchar' || type === 'nvarchar') {
        // UTF-16 code units = byte-pairs (JS strings are UTF-16): two emoji are 4, not 2.
        if (text.length > length) return { error: `${parameter.type.text} holds at most ${length} byte-pair(s) (UTF-16 code units); this has ${text.length}${text.length !== [...text].length ? ' (characters beyond U+FFFF take two)' : ''}` };
        return { value: text };
      }
      // char/varchar: bytes of the database's code page, which the prompt does not know. Counted as UTF-8 bytes, the
      // widest any collation stores (ASCII is 1 byte in every code page; another character 1 byte in a single-byte code
      // page, 2 in a double-byte one, 2–4 in a _UTF8 collation): a value that passes can't be truncated; one refused
      // might still fit a single-byte code page — then use an nvarchar parameter or shorten it.
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > length) return { error: `${parameter.type.text} holds at most ${length} byte(s); this has ${bytes} counted as UTF-8${bytes !== text.length ? ' (non-ASCII characters take 2–4 bytes in a _UTF8 collation, fewer in other code pages: counted at the widest so nothing is truncated)' : ''}` };
      return { value: text };
    }
    case 'binary': case 'varbinary': {
      if (!/^0x([0-9a-f]{2})*$/i.test(v)) return { error: `${parameter.type.text} takes hex bytes such as 0x1F2E` };
      const bytes = Buffer.from(v.slice(2), 'hex');
      const length = parameter.type.length ?? 1;
      if (length !== 'max' && bytes.length > length) return { error: `${parameter.type.text} holds at most ${length} byte(s)` };
      return { value: bytes };
    }
    case 'uniqueidentifier':
      return GUID.test(v) ? { value: v.replace(/[{}]/g, '').toUpperCase() } : { error: 'uniqueidentifier takes a GUID such as 6F9619FF-8B86-D011-B42D-00C04FC964FF' };
    case 'date': {
      const m = DATE.exec(v);
      const date = m ? utcDate(Number(m[1]), Number(m[2]), Number(m[3])) : null;
      return date ? { value: date } : { error: 'date takes YYYY-MM-DD' };
    }
    case 'time': {
      const m = TIME.exec(v);
      const tooLong = m ? fractionTooLong(parameter, m[4]) : null;
      if (tooLong) return { error: tooLong };
      const date = m ? utcDate(1970, 1, 1, Number(m[1]), Number(m[2]), Number(m[3] ?? 0), m[4] ?? '') : null;
      return date ? { value: date } : { error: 'time takes hh:mm[:ss[.fffffff]]' };
    }
    case 'datetime': case 'datetime2': case 'smalldatetime': case 'datetimeoffset': {
      const m = DATETIME.exec(v);
      const zone = m?.[8];
      if (m && zone && type !== 'datetimeoffset') return { error: `${type} has no time zone; leave out ${zone}` };
      const tooLong = m && (type === 'datetime2' || type === 'datetimeoffset') ? fractionTooLong(parameter, m[7]) : null;
      if (tooLong) return { error: tooLong };
      const offset = zone && zone !== 'Z' ? (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) : 0;
      const date = m ? utcDate(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), m[7] ?? '', offset) : null;
      if (!date) return { error: `${type} takes YYYY-MM-DD[ hh:mm[:ss[.${type === 'datetime2' || type === 'datetimeoffset' ? 'fffffff' : 'fff'}]]]${type === 'datetimeoffset' ? '[+hh:mm]' : ''}` };
      // datetime (1/300 s) and smalldatetime (minutes) are coarser than a millisecond: the extra digits don't matter.
      if (type === 'datetime' || type === 'smalldatetime') delete date.nanosecondDelta;
      // Learn: datetime covers 1753-01-01 to 9999-12-31; smalldatetime 1900-01-01 to 2079-06-06.
      const year = Number(m![1]);
      if (type === 'datetime' && year < 1753) return { error: 'datetime starts at 1753-01-01' };
      if (type === 'smalldatetime' && (year < 1900 || date.getTime() > Date.UTC(2079, 5, 6, 23, 59))) return { error: 'smalldatetime covers 1900-01-01 to 2079-06-06' };
      return { value: date };
    }
  }
  return { error: `${parameter.type.text} can't be sent as a typed parameter` };
}

/** Checks one answer for the input box: null when it fits, else the message to show under the box. */
export function validateInput(parameter: ProcedureParameterArg, text: string): string | null {
  const input = readInput(text);
  if (input.kind === 'default') return parameter.default ? null : `${parameter.name} has no default: give a value or NULL`;
  if (input.kind === 'null') return null;
  const result = parameterValue(parameter, input.text);
  return 'error' in result ? result.error : null;
}

/** `[dbo].[usp_load]`, `[dbo].[p];2`: the name an RPC request carries. */
export function procedureCallName(target: Pick<ProcedureTarget, 'nameParts' | 'number'>): string {
  const name = target.nameParts.map(quoteName).join('.');
  return target.number !== null ? `${name};${target.number}` : name;
}

export class ParameterValueError extends Error {}

/** The RPC call for `answers` (by parameter name, with '@'); a parameter answered DEFAULT is left out. */
export function buildProcedureCall(target: ProcedureTarget, answers: ReadonlyMap<string, ParameterInput>): ProcedureCall {
  if (target.notPromptable) throw new ParameterValueError(`${target.name} can't be called from the lens: ${target.notPromptable}.`);
  const parameters: CallParameter[] = [];
  for (const p of target.parameters) {
    const input = answers.get(p.name) ?? (p.default ? { kind: 'default' as const } : undefined);
    if (!input) throw new ParameterValueError(`${p.name} (${p.type.text}) has no value and no default.`);
    if (input.kind === 'default') {
      if (!p.default) throw new ParameterValueError(`${p.name} has no default: give a value or NULL.`);
      continue;
    }
    let value: CallParameter['value'] = null;
    if (input.kind === 'value') {
      const result = parameterValue(p, input.text);
      if ('error' in result) throw new ParameterValueError(`${p.name}: ${result.error}.`);
      value = result.value;
    }
    const type = p.type.name as CallParameterType;
    const call: CallParameter = { name: p.name.slice(1), type, value, output: p.output };
    if (p.type.length !== null) call.length = p.type.length;
    if (type === 'decimal' || type === 'numeric') { call.precision = p.type.precision ?? 18; call.scale = p.type.scale ?? 0; }
    if ((type === 'time' || type === 'datetime2' || type === 'datetimeoffset') && p.type.scale !== null) call.scale = p.type.scale;
    parameters.push(call);
  }
  return { procedure: procedureCallName(target), parameters };
}

/** `EXEC [dbo].[p] @rows = 10, @note = N'x'`: how the call reads in messages and the panel; never sent to a server. */
export function callText(target: ProcedureTarget, answers: ReadonlyMap<string, ParameterInput>): string {
  const args: string[] = [];
  for (const p of target.parameters) {
    const input = answers.get(p.name);
    if (!input || input.kind === 'default') continue;
    const shown = input.kind === 'null' ? 'NULL'
      : /char|date|time|uniqueidentifier/.test(p.type.name) ? `${p.type.name.startsWith('n') ? 'N' : ''}'${input.text.replaceAll("'", "''")}'` : input.text.trim();
    args.push(`${p.name} = ${shown}${p.output ? ' OUTPUT' : ''}`);
  }
  return `EXEC ${procedureCallName(target)}${args.length ? ` ${args.join(', ')}` : ''}`;
}

/** One workload batch that runs the call as an RPC; `firstLine` is the definition's line (errors inside have none). */
export function procedureCallBatch(target: ProcedureTarget, answers: ReadonlyMap<string, ParameterInput>): WorkloadBatch {
  return { text: callText(target, answers), repeat: 1, firstLine: target.range.start.line, call: buildProcedureCall(target, answers) };
}
