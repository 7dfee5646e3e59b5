// Client request messages: SQL batch (MS-TDS 2.2.6.7), RPC (2.2.6.6) and transaction manager (2.2.6.9),
// each after its ALL_HEADERS block (2.2.5.3), parsed into the engine's ExecRequest.
import type { ExecRequest, RpcParameter } from '../engine';
import { TdsProtocolError, readBVarChar, readBytes, readUInt16LE, readUInt32LE, readUInt8 } from './bytes';
import { readTypeInfo, readTypedValue } from './type-info';

/** MS-TDS 2.2.6.6: ProcIDs of the well-known system procedures a client may call by number. */
export const SPECIAL_PROCEDURES: Record<number, string> = {
  1: 'sp_cursor',
  2: 'sp_cursoropen',
  3: 'sp_cursorprepare',
  4: 'sp_cursorexecute',
  5: 'sp_cursorprepexec',
  6: 'sp_cursorunprepare',
  7: 'sp_cursorfetch',
  8: 'sp_cursoroption',
  9: 'sp_cursorclose',
  10: 'sp_executesql',
  11: 'sp_prepare',
  12: 'sp_execute',
  13: 'sp_prepexec',
  14: 'sp_prepexecrpc',
  15: 'sp_unprepare',
};

/** MS-TDS 2.2.5.3 ALL_HEADERS: TotalLength DWORD (itself included), then the headers; TDS 7.2+ always sends it. */
export function skipAllHeaders(buf: Buffer, offset: number): number {
  const total = readUInt32LE(buf, offset).value;
  if (total < 4 || offset + total > buf.length) throw new TdsProtocolError(`ALL_HEADERS length ${total} is out of range`);
  return offset + total;
}

export function parseSqlBatch(payload: Buffer): ExecRequest {
  const start = skipAllHeaders(payload, 0);
  if ((payload.length - start) % 2 !== 0) throw new TdsProtocolError('SQL batch text is not UTF-16LE (odd length)');
  return { kind: 'batch', sql: payload.subarray(start).toString('utf16le') };
}

/** Declared types by parameter name from sp_executesql's @params text, e.g. "@a int, @b nvarchar(10) OUTPUT". */
export function parseParameterDeclarations(params: string): Map<string, string> {
  const declared = new Map<string, string>();
  let depth = 0;
  let current = '';
  const flush = (): void => {
    const match = /^\s*(@[^\s]+)\s+(.+?)\s*$/s.exec(current);
    if (match) declared.set(match[1]!.toLowerCase(), match[2]!.replace(/\s+(out|output|readonly)$/i, '').trim());
    current = '';
  };
  for (const ch of params) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) flush();
    else current += ch;
  }
  flush();
  return declared;
}

export function parseRpc(payload: Buffer): ExecRequest {
  let offset = skipAllHeaders(payload, 0);
  const nameLength = readUInt16LE(payload, offset); // NameLenProcID
  offset = nameLength.offset;
  let procedure: string;
  if (nameLength.value === 0xffff) {
    const procId = readUInt16LE(payload, offset); // ProcID
    offset = procId.offset;
    procedure = SPECIAL_PROCEDURES[procId.value] ?? `procid ${procId.value}`;
  } else {
    const name = readBytes(payload, offset, nameLength.value * 2);
    procedure = name.value.toString('utf16le');
    offset = name.offset;
  }
  offset = readUInt16LE(payload, offset).offset; // OptionFlags: fWithRecomp, fNoMetaData, fReuseMetaData
  const parameters: RpcParameter[] = [];
  // Parameters run to the end of the message or to a batch separator (0xFF in TDS 7.2+, 0x80 before).
  while (offset < payload.length && payload[offset] !== 0xff && payload[offset] !== 0x80) {
    const name = readBVarChar(payload, offset);
    const status = readUInt8(payload, name.offset); // StatusFlags: fByRefValue 0x01, fDefaultValue 0x02
    const info = readTypeInfo(payload, status.offset);
    const value = readTypedValue(payload, info.offset, info.value);
    parameters.push({ name: name.value, value: value.value, typeName: info.value.typeName, output: (status.value & 0x01) !== 0 });
    offset = value.offset;
  }
  if (offset < payload.length) throw new TdsProtocolError('batched RPC requests are not supported by the stand-in');
  if (procedure.toLowerCase() !== 'sp_executesql') return { kind: 'rpc', procedure, statement: null, parameters };
  // sp_executesql: @stmt, [@params], then the values; the declared types in @params are the ones T-SQL sees.
  const [stmt, params, ...values] = parameters;
  if (!stmt || typeof stmt.value !== 'string') throw new TdsProtocolError('sp_executesql without a statement');
  const declared = params && typeof params.value === 'string' ? parseParameterDeclarations(params.value) : new Map<string, string>();
  const typed = values.map((p) => ({ ...p, typeName: declared.get(p.name.toLowerCase()) ?? p.typeName }));
  return { kind: 'rpc', procedure: 'sp_executesql', statement: stmt.value, parameters: typed };
}

/** MS-TDS 2.2.6.9 RequestType values. */
const TmRequest = { BEGIN: 5, COMMIT: 7, ROLLBACK: 8, SAVE: 9 } as const;

/** A transaction name: BYTE length in bytes (what tedious sends), then UCS-2. */
function readTmName(buf: Buffer, offset: number): { value: string; offset: number } {
  const length = readUInt8(buf, offset);
  const bytes = readBytes(buf, length.offset, length.value);
  return { value: bytes.value.toString('utf16le'), offset: bytes.offset };
}

export function parseTransactionManager(payload: Buffer): ExecRequest {
  let offset = skipAllHeaders(payload, 0);
  const type = readUInt16LE(payload, offset);
  offset = type.offset;
  switch (type.value) {
    case TmRequest.BEGIN: {
      const isolation = readUInt8(payload, offset); // fIsolationLevel, 0 = no change
      const name = offset + 1 < payload.length ? readTmName(payload, isolation.offset).value : '';
      return { kind: 'transactionManager', operation: 'begin', name, isolationLevel: isolation.value };
    }
    case TmRequest.COMMIT:
    case TmRequest.ROLLBACK:
    case TmRequest.SAVE: {
      const name = offset < payload.length ? readTmName(payload, offset).value : '';
      const operation = type.value === TmRequest.COMMIT ? 'commit' : type.value === TmRequest.ROLLBACK ? 'rollback' : 'save';
      return { kind: 'transactionManager', operation, name };
    }
    default:
      throw new TdsProtocolError(`transaction manager request ${type.value} is not supported by the stand-in`);
  }
}
