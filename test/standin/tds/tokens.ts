// Token writers for the server's answers (MS-TDS 2.2.7): LOGINACK, ENVCHANGE, INFO/ERROR, DONE*, RETURNSTATUS.
// Each returns the complete token bytes, token type first. Result sets live in columns.ts.
import type { EnvChange, ServerMessage } from '../engine';
import { bVarByte, bVarChar, usVarChar } from './bytes';

export const TokenType = {
  RETURNSTATUS: 0x79,
  COLMETADATA: 0x81,
  ERROR: 0xaa,
  INFO: 0xab,
  LOGINACK: 0xad,
  ROW: 0xd1,
  NBCROW: 0xd2,
  ENVCHANGE: 0xe3,
  DONE: 0xfd,
  DONEPROC: 0xfe,
  DONEINPROC: 0xff,
} as const;

/** MS-TDS 2.2.7.6 DONE status bits. */
export const DoneStatus = {
  FINAL: 0x0000,
  MORE: 0x0001,
  ERROR: 0x0002,
  INXACT: 0x0004,
  COUNT: 0x0010,
  ATTN: 0x0020,
  SRVERROR: 0x0100,
} as const;

/** TDS 7.4 as LOGINACK carries it (big-endian in this token). */
export const TDS_7_4 = 0x74000004;

/** SQL_Latin1_General_CP1_CI_AS (MS-TDS 2.2.5.1.2): LCID 0x0409 + flags 0x0D (IgnoreCase|IgnoreKana|IgnoreWidth) LE, SortId 52. */
export const DEFAULT_COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);

function withLength(type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt8(type, 0); // TokenType
  head.writeUInt16LE(body.length, 1); // Length USHORT
  return Buffer.concat([head, body]);
}

/** MS-TDS 2.2.7.14 LOGINACK: Interface, TDSVersion, ProgName, ProgVersion. */
export function loginAckToken(progName: string, version: { major: number; minor: number; build: number }, tdsVersion = TDS_7_4): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(1, 0); // Interface: 1 = SQL_TSQL
  head.writeUInt32BE(tdsVersion, 1); // TDSVersion
  const progVersion = Buffer.from([
    version.major & 0xff, // MajorVer
    version.minor & 0xff, // MinorVer
    (version.build >> 8) & 0xff, // BuildNumHi
    version.build & 0xff, // BuildNumLow
  ]);
  return withLength(TokenType.LOGINACK, Buffer.concat([head, bVarChar(progName), progVersion]));
}

/** MS-TDS 2.2.7.9 ENVCHANGE type codes the stand-in sends. */
export const EnvChangeType = {
  DATABASE: 1,
  LANGUAGE: 2,
  PACKET_SIZE: 4,
  SQL_COLLATION: 7,
  BEGIN_TRANSACTION: 8,
  COMMIT_TRANSACTION: 9,
  ROLLBACK_TRANSACTION: 10,
  RESET_CONNECTION: 18,
} as const;

function envChange(type: number, newValue: Buffer, oldValue: Buffer): Buffer {
  return withLength(TokenType.ENVCHANGE, Buffer.concat([Buffer.from([type]), newValue, oldValue]));
}

function descriptorBytes(descriptor: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(BigInt.asUintN(64, descriptor));
  return out;
}

/** String-valued changes (database, language, packet size) use B_VARCHAR for new and old value. */
export function envChangeText(type: number, newValue: string, oldValue: string): Buffer {
  return envChange(type, bVarChar(newValue), bVarChar(oldValue));
}

export function envChangeCollation(collation: Buffer = DEFAULT_COLLATION): Buffer {
  return envChange(EnvChangeType.SQL_COLLATION, bVarByte(collation), bVarByte(Buffer.alloc(0)));
}

export function envChangeResetAck(): Buffer {
  return envChange(EnvChangeType.RESET_CONNECTION, bVarByte(Buffer.alloc(0)), bVarByte(Buffer.alloc(0)));
}

/** The engine's EnvChange → token. Begin carries the new descriptor; commit/rollback carry the old one. */
export function envChangeToken(change: EnvChange): Buffer {
  const none = bVarByte(Buffer.alloc(0));
  switch (change.type) {
    case 'database':
      return envChangeText(EnvChangeType.DATABASE, change.newValue, change.oldValue);
    case 'beginTransaction':
      return envChange(EnvChangeType.BEGIN_TRANSACTION, bVarByte(descriptorBytes(change.descriptor)), none);
    case 'commitTransaction':
      return envChange(EnvChangeType.COMMIT_TRANSACTION, none, bVarByte(descriptorBytes(change.descriptor)));
    case 'rollbackTransaction':
      return envChange(EnvChangeType.ROLLBACK_TRANSACTION, none, bVarByte(descriptorBytes(change.descriptor)));
  }
}

/** MS-TDS 2.2.7.10 ERROR / 2.2.7.13 INFO: Number, State, Class, MsgText, ServerName, ProcName, LineNumber. */
export function messageToken(kind: 'info' | 'error', message: ServerMessage, serverName: string): Buffer {
  const head = Buffer.alloc(6);
  head.writeInt32LE(message.number, 0); // Number LONG
  head.writeUInt8(message.state & 0xff, 4); // State BYTE
  head.writeUInt8(message.class & 0xff, 5); // Class BYTE (severity)
  const line = Buffer.alloc(4);
  line.writeInt32LE(message.lineNumber, 0); // LineNumber LONG (TDS 7.2+)
  const body = Buffer.concat([head, usVarChar(message.message), bVarChar(serverName), bVarChar(message.procName ?? ''), line]);
  return withLength(kind === 'error' ? TokenType.ERROR : TokenType.INFO, body);
}

/** MS-TDS 2.2.7.6 DONE / 2.2.7.7 DONEINPROC / 2.2.7.8 DONEPROC: Status USHORT, CurCmd USHORT, DoneRowCount ULONGLONG. */
export function doneToken(type: number, status: number, rowCount = 0, curCmd = 0): Buffer {
  const out = Buffer.alloc(13);
  out.writeUInt8(type, 0);
  out.writeUInt16LE(status, 1);
  out.writeUInt16LE(curCmd, 3); // CurCmd: the statement's token (0xC1 SELECT etc.); clients ignore it
  out.writeBigUInt64LE(BigInt(rowCount), 5);
  return out;
}

/** MS-TDS 2.2.7.18 RETURNSTATUS: LONG. */
export function returnStatusToken(value: number): Buffer {
  const out = Buffer.alloc(5);
  out.writeUInt8(TokenType.RETURNSTATUS, 0);
  out.writeInt32LE(value, 1);
  return out;
}
