// PRELOGIN (MS-TDS 2.2.6.5): parse the client's option table, decide encryption, build the server's answer.
import { TdsProtocolError, need } from './bytes';

/** MS-TDS 2.2.6.5 PL_OPTION_TOKEN values. */
export const PreloginOption = {
  VERSION: 0x00,
  ENCRYPTION: 0x01,
  INSTOPT: 0x02,
  THREADID: 0x03,
  MARS: 0x04,
  TRACEID: 0x05,
  FEDAUTHREQUIRED: 0x06,
  NONCEOPT: 0x07,
  TERMINATOR: 0xff,
} as const;

/** MS-TDS 2.2.6.5 B_FENCRYPTION values. */
export const Encrypt = {
  OFF: 0x00, // supported but off: only LOGIN7 travels inside TLS
  ON: 0x01, // TLS for the whole session
  NOT_SUP: 0x02, // no TLS at all
  REQ: 0x03, // required (server) / "on" (client)
} as const;

export interface PreloginRequest {
  version?: { major: number; minor: number; build: number; subBuild: number };
  encryption: number; // Encrypt.*, NOT_SUP when the client sent no ENCRYPTION option
  instance?: string;
  threadId?: number;
  mars?: number;
}

/** Parse the option table: (token BYTE, offset USHORT BE, length USHORT BE)* then 0xFF, data after the table. */
export function parsePrelogin(buf: Buffer): PreloginRequest {
  const request: PreloginRequest = { encryption: Encrypt.NOT_SUP };
  let offset = 0;
  for (;;) {
    need(buf, offset, 1, 'PRELOGIN option token');
    const token = buf.readUInt8(offset);
    if (token === PreloginOption.TERMINATOR) break;
    need(buf, offset, 5, 'PRELOGIN option');
    const dataOffset = buf.readUInt16BE(offset + 1);
    const length = buf.readUInt16BE(offset + 3);
    need(buf, dataOffset, length, 'PRELOGIN option data');
    const data = buf.subarray(dataOffset, dataOffset + length);
    switch (token) {
      case PreloginOption.VERSION:
        // UL_VERSION: major BYTE, minor BYTE, build USHORT BE; US_SUBBUILD USHORT BE
        if (length >= 6) request.version = { major: data[0]!, minor: data[1]!, build: data.readUInt16BE(2), subBuild: data.readUInt16BE(4) };
        break;
      case PreloginOption.ENCRYPTION:
        if (length !== 1) throw new TdsProtocolError('PRELOGIN ENCRYPTION option must be 1 byte');
        request.encryption = data[0]!;
        break;
      case PreloginOption.INSTOPT: {
        const end = data.indexOf(0);
        request.instance = data.subarray(0, end < 0 ? data.length : end).toString('latin1');
        break;
      }
      case PreloginOption.THREADID:
        if (length >= 4) request.threadId = data.readUInt32BE(0);
        break;
      case PreloginOption.MARS:
        if (length >= 1) request.mars = data[0]!;
        break;
      default:
        break; // TRACEID, FEDAUTHREQUIRED, NONCEOPT: nothing the stand-in acts on
    }
    offset += 5;
  }
  return request;
}

/** How the stand-in treats TLS: offer it, require it, or also grant login-only encryption to clients that ask OFF. */
export type EncryptionPolicy = 'optional' | 'required' | 'loginOnly';

export type EncryptionDecision =
  | { answer: number; tls: 'none' | 'session' | 'loginOnly' }
  | { answer: number; tls: 'refuse' };

/**
 * MS-TDS 2.2.6.5 encryption negotiation (server side). A client that asks NOT_SUP or OFF gets NOT_SUP unless the
 * server requires TLS; ON/REQ gets ON and TLS for the session. 'loginOnly' answers OFF to OFF (the client encrypts
 * only LOGIN7). A server that requires TLS answers REQ to a NOT_SUP client and closes.
 */
export function decideEncryption(clientEncryption: number, policy: EncryptionPolicy): EncryptionDecision {
  const clientWants = clientEncryption === Encrypt.ON || clientEncryption === Encrypt.REQ;
  if (clientWants) return { answer: Encrypt.ON, tls: 'session' };
  if (policy === 'required') {
    return clientEncryption === Encrypt.OFF ? { answer: Encrypt.REQ, tls: 'session' } : { answer: Encrypt.REQ, tls: 'refuse' };
  }
  if (policy === 'loginOnly' && clientEncryption === Encrypt.OFF) return { answer: Encrypt.OFF, tls: 'loginOnly' };
  return { answer: Encrypt.NOT_SUP, tls: 'none' };
}

/** The server's PRELOGIN answer: VERSION, ENCRYPTION, INSTOPT, THREADID (empty), MARS, then TERMINATOR. */
export function buildPreloginResponse(options: { version: { major: number; minor: number; build: number }; encryption: number }): Buffer {
  const version = Buffer.alloc(6);
  version.writeUInt8(options.version.major, 0); // major
  version.writeUInt8(options.version.minor, 1); // minor
  version.writeUInt16BE(options.version.build, 2); // build
  version.writeUInt16BE(0, 4); // sub-build
  const entries: Array<[number, Buffer]> = [
    [PreloginOption.VERSION, version],
    [PreloginOption.ENCRYPTION, Buffer.from([options.encryption])],
    [PreloginOption.INSTOPT, Buffer.from([0x00])], // 0x00: the instance name matched (or none was asked)
    [PreloginOption.THREADID, Buffer.alloc(0)], // servers send it empty
    [PreloginOption.MARS, Buffer.from([0x00])], // MARS off: the stand-in serves one request at a time
  ];
  const tableLength = entries.length * 5 + 1;
  const out = Buffer.alloc(tableLength + entries.reduce((sum, [, data]) => sum + data.length, 0));
  let optionOffset = 0;
  let dataOffset = tableLength;
  for (const [token, data] of entries) {
    out.writeUInt8(token, optionOffset); // PL_OPTION_TOKEN
    out.writeUInt16BE(dataOffset, optionOffset + 1); // PL_OFFSET from the start of the payload
    out.writeUInt16BE(data.length, optionOffset + 3); // PL_OPTION_LENGTH
    data.copy(out, dataOffset);
    optionOffset += 5;
    dataOffset += data.length;
  }
  out.writeUInt8(PreloginOption.TERMINATOR, optionOffset);
  return out;
}
