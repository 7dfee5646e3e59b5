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

export function addCallParameters(request: Request, parameters: readonly CallParameter[]): void {
  for (const p of parameters) {
    const type = tediousTypeOf(p.type);
    if (p.output) request.addOutputParameter(p.name, type, p.value, callParameterOptions(p));
    else request.addParameter(p.name, type, p.value, callParameterOptions(p));
  }
}
