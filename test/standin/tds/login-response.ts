// The server's answer to LOGIN7 (MS-TDS 2.2.6.4 → 2.2.7): on success the ENVCHANGE/INFO/LOGINACK sequence a
// SQL Server login produces; on failure one ERROR token and DONE with the error bit.
import type { LoginResult, ServerMessage } from '../engine';
import { DoneStatus, EnvChangeType, TokenType, doneToken, envChangeCollation, envChangeText, loginAckToken, messageToken } from './tokens';

export const DEFAULT_PACKET_SIZE = 4096;
export const PROG_NAME = 'Durability Lens stand-in';

/** Packet size the server grants: the client's request, clamped to TDS's 512..32767, or the default when 0. */
export function negotiatePacketSize(requested: number): number {
  if (!requested) return DEFAULT_PACKET_SIZE;
  return Math.min(32767, Math.max(512, requested));
}

/** Tokens of a successful login, in the order SQL Server sends them. */
export function loginSuccessTokens(result: Extract<LoginResult, { ok: true }>, packetSize: number): Buffer[] {
  const server = result.serverName;
  const info = (message: ServerMessage): Buffer => messageToken('info', message, server);
  return [
    envChangeText(EnvChangeType.DATABASE, result.database, 'master'),
    // 5701 / 5703: the informational messages (class 0) a login emits on database and language change
    info({ number: 5701, state: 2, class: 0, message: `Changed database context to '${result.database}'.`, lineNumber: 1 }),
    envChangeCollation(),
    envChangeText(EnvChangeType.LANGUAGE, 'us_english', ''),
    info({ number: 5703, state: 1, class: 0, message: 'Changed language setting to us_english.', lineNumber: 1 }),
    loginAckToken(PROG_NAME, result.serverVersion),
    envChangeText(EnvChangeType.PACKET_SIZE, String(packetSize), String(DEFAULT_PACKET_SIZE)),
    doneToken(TokenType.DONE, DoneStatus.FINAL),
  ];
}

/** Tokens of a refused login: ERROR (e.g. 18456, 4060) and DONE with the error bit; the server then closes. */
export function loginFailureTokens(error: ServerMessage, serverName: string): Buffer[] {
  return [messageToken('error', error, serverName), doneToken(TokenType.DONE, DoneStatus.ERROR)];
}
