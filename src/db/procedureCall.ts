// Typed RPC parameters for a procedure call (MS-TDS 2.2.6.6 RPC request: each parameter carries its TYPE_INFO and
// value; none of it is SQL text). The only place a CallParameterType becomes a tedious data type.
import { TYPES, type Request } from 'tedious';
import type { CallParameter, CallParameterType } from './types';

const CALL_TYPES: Record<CallParameterType, (typeof TYPES)[keyof typeof TYPES]> = {
  bit: TYPES.Bit,
  tinyint: TYPES.TinyInt,
  smallint: TYPES.SmallInt,
  int: TYPES.Int,
  bigint: TYPES.BigInt,
  decimal: TYPES.Decimal,
  numeric: TYPES.Numeric,
  money: TYPES.Money,
  smallmoney: TYPES.SmallMoney,
  float: TYPES.Float,
  real: TYPES.Real,
  char: TYPES.Char,
  varchar: TYPES.VarChar,
  nchar: TYPES.NChar,
  nvarchar: TYPES.NVarChar,
  binary: TYPES.Binary,
  varbinary: TYPES.VarBinary,
  uniqueidentifier: TYPES.UniqueIdentifier,
  date: TYPES.Date,
  time: TYPES.Time,
  datetime: TYPES.DateTime,
  datetime2: TYPES.DateTime2,
  smalldatetime: TYPES.SmallDateTime,
  datetimeoffset: TYPES.DateTimeOffset,
};

/** A length above the type's maximum makes tedious send the PLP (max) form: `nvarchar(max)`, `varbinary(max)`. */
const MAX_LENGTH = 0x7fffffff;

export function tediousTypeOf(type: CallParameterType): (typeof TYPES)[keyof typeof TYPES] {
  return CALL_TYPES[type];
}

/** tedious's options for one parameter: the declared length/precision/scale, so the server sees the procedure's type. */
export function callParameterOptions(p: CallParameter): { output?: boolean; length?: number; precision?: number; scale?: number } {
  const options: { output?: boolean; length?: number; precision?: number; scale?: number } = {};
  if (p.length !== undefined) options.length = p.length === 'max' ? MAX_LENGTH : p.length;
  if (p.precision !== undefined) options.precision = p.precision;
  if (p.scale !== undefined) options.scale = p.scale;
  return options;
}

/**
 * What tedious would put on the wire for a decimal/numeric value: it scales a JS number,
 * `BigInt(Math.round(Math.abs(value * 10 ** scale)))` (node_modules/tedious/lib/data-types/decimal-common.js
 * writeDecimal, after decimal.js/numeric.js validate with parseFloat), so only a double's ~15–17 digits survive.
 */
export function tediousDecimalMagnitude(text: string, scale: number): bigint {
  return BigInt(Math.round(Math.abs(Number(text) * Math.pow(10, scale))));
}

/** The exact scaled magnitude of a decimal text ("-12.5" at scale 2 → 1250n); the text has at most `scale` decimals. */
export function exactDecimalMagnitude(text: string, scale: number): bigint {
  const [whole = '0', fraction = ''] = text.replace(/^[+-]/, '').split('.');
  return BigInt((whole || '0') + fraction.padEnd(scale, '0'));
}

/**
 * How one parameter travels. A decimal/numeric value is a string (exact); it goes as the declared type when tedious
 * would write exactly that magnitude, else as an nvarchar parameter that SQL Server converts to the procedure's
 * declared type on the call (implicit conversion nvarchar → decimal/numeric: Learn "Data type conversion (Database
 * Engine)"). Still a parameter, never SQL text.
 */
export function wireParameter(p: CallParameter): { type: (typeof TYPES)[keyof typeof TYPES]; value: CallParameter['value']; options: ReturnType<typeof callParameterOptions> } {
  const options = callParameterOptions(p);
  if ((p.type === 'decimal' || p.type === 'numeric') && typeof p.value === 'string') {
    const scale = p.scale ?? 0;
    if (tediousDecimalMagnitude(p.value, scale) === exactDecimalMagnitude(p.value, scale)) return { type: tediousTypeOf(p.type), value: Number(p.value), options };
    // Room for the sign, 38 digits and the point; an OUTPUT value comes back in the same nvarchar.
    return { type: TYPES.NVarChar, value: p.value, options: { length: 41 } };
  }
  return { type: tediousTypeOf(p.type), value: p.value, options };
}

export function addCallParameters(request: Request, parameters: readonly CallParameter[]): void {
  for (const p of parameters) {
    const wire = wireParameter(p);
    if (p.output) request.addOutputParameter(p.name, wire.type, wire.value, wire.options);
    else request.addParameter(p.name, wire.type, wire.value, wire.options);
  }
}
