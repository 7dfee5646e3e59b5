// Classifies driver and server errors into what the user must know: what happened, that nothing changed,
// and what to do. Works on plain objects shaped like tedious's ConnectionError / RequestError, so tests need no socket.
import { definedFields } from '../shared/definedFields';
import { INVALID_CERTIFICATE_CODES, UNTRUSTED_ISSUER_CODES } from './certificateCodes';
import type { ConnectionFailureInfo, ConnectionFailureKind, ConnectionProfile, SqlErrorInfo } from './types';

interface ErrorLike {
  message?: string;
  code?: string;
  number?: number;
  cause?: unknown;
  errors?: unknown[];
}

function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 8; depth++) {
    out.push(cur as ErrorLike);
    cur = (cur as ErrorLike).cause;
  }
  return out;
}

/** A connection that could not be opened, carrying the classification for the UI. */
export class ConnectionFailure extends Error {
  readonly info: ConnectionFailureInfo;
  constructor(info: ConnectionFailureInfo, options?: ErrorOptions) {
    super(`${info.message} ${info.action}`, options);
    this.name = 'ConnectionFailure';
    this.info = info;
  }
}

function describeTarget(profile?: Pick<ConnectionProfile, 'server' | 'port' | 'instanceName'>): string {
  if (!profile) return 'the server';
  if (profile.instanceName) return `${profile.server}\\${profile.instanceName}`;
  return `${profile.server}:${profile.port ?? 1433}`;
}

function failure(
  kind: ConnectionFailureKind,
  message: string,
  action: string,
  driverMessage: string,
  extra: Partial<ConnectionFailureInfo> = {},
): ConnectionFailureInfo {
  return { kind, message, action, nothingChanged: true, offerTrustServerCertificate: false, driverMessage, ...extra };
}

const NOTHING_CHANGED = 'Nothing was changed on the server.';

/**
 * Classifies a connect error. `serverErrorNumber` is the number of the last ERROR token seen during login
 * (tedious's ELOGIN ConnectionError carries only the text, so connect() listens to 'errorMessage' for it).
 */
export function classifyConnectionError(
  err: unknown,
  context: { serverErrorNumber?: number; profile?: Pick<ConnectionProfile, 'server' | 'port' | 'instanceName' | 'database'> & { encrypt?: ConnectionProfile['encrypt'] } } = {},
): ConnectionFailureInfo {
  const links = chain(err);
  const top = links[0] ?? {};
  const driverMessage = links.map((l) => l.message).filter(Boolean).join(' ← ') || String(err);
  const code = top.code;
  const number = context.serverErrorNumber ?? top.number;
  const target = describeTarget(context.profile);
  const db = context.profile?.database;

  if (err instanceof ConnectionFailure) return err.info;
  if (code === 'ECANCEL' || code === 'ABORT_ERR' || (top as { name?: string }).name === 'AbortError') {
    return failure('cancelled', `Connecting to ${target} was cancelled. ${NOTHING_CHANGED}`, 'Connect again when ready.', driverMessage);
  }
  // 4060's text also says "The login failed.", so it is checked before the generic login failure.
  if (number === 4060) {
    return failure(
      'unknown-database',
      `The database ${db ? `"${db}" ` : ''}does not exist on ${target} or this login may not open it (error 4060). ${NOTHING_CHANGED}`,
      'Check the database name in the profile, or ask for access to it (CREATE USER in that database).',
      driverMessage,
      { serverErrorNumber: 4060 },
    );
  }
  if (number === 18456 || (number === undefined && code === 'ELOGIN' && /login failed/i.test(top.message ?? ''))) {
    return failure(
      'login-failed',
      `The server refused the login (error 18456). ${NOTHING_CHANGED}`,
      'Check the user name and password (or the authentication type) of this profile; the server log says which part was wrong.',
      driverMessage,
      { serverErrorNumber: 18456 },
    );
  }
  // Checked by the TLS error code: a wrong certificate (another host's, expired) is never offered for trust.
  const invalidCode = links.map((l) => l.code).find((c) => c && INVALID_CERTIFICATE_CODES.has(c));
  if (invalidCode) {
    const why = invalidCode === 'ERR_TLS_CERT_ALTNAME_INVALID' ? `is issued for another host name than ${context.profile?.server ?? 'the one connected to'}` : invalidCode === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet';
    return failure(
      'certificate-invalid',
      `The server's TLS certificate ${why} (${invalidCode}). ${NOTHING_CHANGED}`,
      'Connect with the host name the certificate names, or have the server\'s certificate renewed; Durability Lens does not offer to trust a wrong certificate.',
      driverMessage,
    );
  }
  const tlsCode = links.map((l) => l.code).find((c) => c && UNTRUSTED_ISSUER_CODES.has(c));
  if (tlsCode || links.some((l) => /self[- ]signed certificate|unable to verify the first certificate/i.test(l.message ?? ''))) {
    return failure(
      'untrusted-certificate',
      `The server's TLS certificate is not trusted by this machine (${tlsCode ?? 'self-signed'}). ${NOTHING_CHANGED}`,
      'Install a certificate from a trusted authority on the server (or its CA on this machine), or — if you know this server — trust this one certificate, by its fingerprint, for this profile only.',
      driverMessage,
      { offerTrustServerCertificate: true },
    );
  }
  if (code === 'EENCRYPT' && /requires encryption/i.test(top.message ?? '')) {
    return failure(
      'encryption-refused',
      `${target} requires an encrypted connection, but this profile has "Encrypt" turned off. ${NOTHING_CHANGED}`,
      'Set "Encrypt" to true (or strict) for this profile.',
      driverMessage,
    );
  }
  if (code === 'EENCRYPT') {
    return failure(
      'encryption-refused',
      `Encryption was requested but ${target} did not agree to encrypt the connection. ${NOTHING_CHANGED}`,
      'Configure TLS on the server, or set "Encrypt" to false for this profile if an unencrypted connection is acceptable.',
      driverMessage,
    );
  }
  // Encrypt = strict (TDS 8.0) starts with a TLS handshake before any TDS packet; a server older than 2022 does not
  // speak it and drops the socket mid-handshake. Only when TCP did connect (ECONNREFUSED / DNS stay "unreachable").
  // "Strict … supported from SQL Server 2022": SqlConnectionEncryptOption.Strict,
  // https://learn.microsoft.com/dotnet/api/microsoft.data.sqlclient.sqlconnectionencryptoption.strict (reference §8a).
  if (context.profile?.encrypt === 'strict' && code === 'ESOCKET' && tlsHandshakeFailed(links)) {
    return failure(
      'encryption-refused',
      `Encrypt = strict (TDS 8.0) was requested, but ${target} closed the connection during the TLS handshake. Strict encryption needs SQL Server 2022 or later (or Azure SQL); SQL Server 2016–2019 do not support it. ${NOTHING_CHANGED}`,
      'Set "Encrypt" to true (mandatory encryption, supported by every version) for this server, or keep strict for SQL Server 2022+ only.',
      driverMessage,
    );
  }
  if (code === 'ESOCKET' || code === 'ETIMEOUT' || code === 'EINSTLOOKUP') {
    return failure(
      'unreachable',
      `Could not reach ${target}${code === 'ETIMEOUT' ? ' before the connect timeout' : ''}. ${NOTHING_CHANGED}`,
      code === 'EINSTLOOKUP'
        ? 'Check the instance name and that the SQL Server Browser service (UDP 1434) is reachable, or use the port instead.'
        : 'Check the server name and port, that SQL Server accepts TCP connections, and that no firewall is in the way.',
      driverMessage,
    );
  }
  return failure(
    'other',
    `Could not connect to ${target}: ${top.message ?? String(err)}. ${NOTHING_CHANGED}`,
    'See the output channel for the driver message.',
    driverMessage,
    number !== undefined ? { serverErrorNumber: number } : {},
  );
}

/** A socket that connected and then failed in TLS (reset, closed, or answered with something that is not TLS). */
function tlsHandshakeFailed(links: ErrorLike[]): boolean {
  const codes = links.map((l) => l.code);
  if (codes.some((c) => c === 'ECONNREFUSED' || c === 'ENOTFOUND' || c === 'EHOSTUNREACH' || c === 'ENETUNREACH' || c === 'EAI_AGAIN')) return false;
  return links.some((l) => /before secure TLS connection was established|wrong version number|packet length too long|EPROTO|ECONNRESET|socket hang up/i.test(`${l.code ?? ''} ${l.message ?? ''}`));
}

/** Server error numbers that mean "you lack a permission" (297: no permission for action; 300: X permission denied). */
export const PERMISSION_ERROR_NUMBERS: ReadonlySet<number> = new Set([229, 230, 262, 297, 300, 916]);
/** Server error numbers that mean "this object or column does not exist here" (older version, Azure). */
export const MISSING_OBJECT_ERROR_NUMBERS: ReadonlySet<number> = new Set([207, 208, 2812, 4121, 195]);

/** The server errors inside a request error (tedious uses AggregateError when several ERROR tokens arrived). */
export function sqlErrorsOf(err: unknown): SqlErrorInfo[] {
  if (!err || typeof err !== 'object') return [];
  const e = err as ErrorLike & { state?: number; class?: number; lineNumber?: number; procName?: string };
  if (Array.isArray(e.errors)) return e.errors.flatMap((inner) => sqlErrorsOf(inner));
  if (typeof e.number !== 'number') return [];
  // Kept with the run (history, exports): no procName key for a batch, rather than an undefined one.
  return [
    definedFields({
      number: e.number,
      state: e.state ?? 0,
      class: e.class ?? 0,
      message: e.message ?? '',
      lineNumber: e.lineNumber ?? 0,
      procName: e.procName || undefined,
    }),
  ];
}

export function isPermissionError(err: unknown): boolean {
  return sqlErrorsOf(err).some((e) => PERMISSION_ERROR_NUMBERS.has(e.number));
}

export function isMissingObjectError(err: unknown): boolean {
  return sqlErrorsOf(err).some((e) => MISSING_OBJECT_ERROR_NUMBERS.has(e.number));
}

/** An error a query raised, with the server errors kept as data. */
export class SqlQueryError extends Error {
  readonly errors: SqlErrorInfo[];
  readonly code: string | undefined;
  constructor(message: string, errors: SqlErrorInfo[], code: string | undefined, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SqlQueryError';
    this.errors = errors;
    this.code = code;
  }
  get number(): number | undefined {
    return this.errors[0]?.number;
  }
}
