// Opens the WORKLOAD or MONITOR connection: login, error classification, session setup (monitor: low-impact
// SET options), @@SPID, and verification that a requested encryption really is in force.
import type { TLSSocket } from 'node:tls';
import { Connection } from 'tedious';
import { certificateHost, pinnedCertificateProblem } from './certificate';
import { ConnectionFailure, classifyConnectionError, isPermissionError } from './errors';
import { toTediousConfig } from './profile';
import { TediousSession } from './session';
import type { ConnectionProfile, ConnectionRole, SqlClient } from './types';

/** How the server's certificate was checked: by the machine's trust store, against the profile's pin, or not at all. */
export type CertificateCheck = 'verified' | 'pinned' | 'not-verified';

export interface ConnectOptions {
  role: ConnectionRole;
  signal?: AbortSignal | undefined;
  /** Monitor only: SET LOCK_TIMEOUT in ms, so a snapshot never queues behind the user's locks. Default 5000. */
  lockTimeoutMs?: number;
}

/**
 * Low-impact session for diagnostics (the pattern vscode-mssql uses on its diagnostic connections):
 * give up on locks after a few seconds, be the deadlock victim, and don't send row counts.
 * Sent as a plain batch so the SET options stay in force for the whole session.
 * The same request names the database the monitor logged in to and its DELAYED_DURABILITY (the columns of the
 * profile's target read, profile/runContext.ts), so a run that just opened the monitor needs no request for them:
 * DB_ID()/DB_NAME() name the current database (Learn: db-id-transact-sql, db-name-transact-sql), and "the database to
 * which the caller is connected can always be viewed in sys.databases" (Learn: sys-databases-transact-sql).
 */
function monitorSetupSql(lockTimeoutMs: number): string {
  return `SET NOCOUNT ON;
SET LOCK_TIMEOUT ${Math.max(0, Math.trunc(lockTimeoutMs))};
SET DEADLOCK_PRIORITY LOW;
SELECT @@SPID AS spid, DB_ID() AS database_id, DB_NAME() AS database_name,
  (SELECT d.delayed_durability_desc FROM sys.databases AS d WHERE d.database_id = DB_ID()) AS delayed_durability_desc;`;
}

const WORKLOAD_SETUP_SQL = 'SELECT @@SPID AS spid;';

/**
 * encrypt_option is "Boolean value to describe whether encryption is enabled for this connection".
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-connections-transact-sql
 */
export const ENCRYPTION_CHECK_SQL = `SELECT encrypt_option
FROM sys.dm_exec_connections
WHERE session_id = @@SPID;`;

function openConnection(
  profile: ConnectionProfile,
  secret: string | undefined,
  role: ConnectionRole,
  signal?: AbortSignal,
): Promise<{ connection: Connection; sawTls: boolean; loginDatabase: string | null; certificate: CertificateCheck }> {
  return new Promise((resolve, reject) => {
    const failWith = (err: unknown, serverErrorNumber?: number) =>
      new ConnectionFailure(classifyConnectionError(err, { serverErrorNumber, profile }), { cause: err });
    if (signal?.aborted) {
      reject(failWith(signal.reason ?? Object.assign(new Error('aborted'), { name: 'AbortError' })));
      return;
    }
    // A pinned certificate: tedious' chain check is off and the check below (fingerprint, host, dates) replaces it.
    const pin = profile.encrypt === true ? profile.pinnedCertificateSha256 : undefined;
    let connection: Connection;
    try {
      connection = new Connection(toTediousConfig(pin ? { ...profile, trustServerCertificate: true } : profile, secret, role));
    } catch (err) {
      reject(failWith(err));
      return;
    }
    // tedious's ELOGIN error carries only the text; the ERROR token's number comes through this event.
    // The first one is the cause: an unknown database sends 4060 and then the generic 18456.
    let firstServerError: number | undefined;
    let sawTls = false;
    let loginDatabase: string | null = null;
    let settled = false;
    const onLoginError = (token: { number: number }) => {
      firstServerError ??= token.number;
    };
    let pinFailure: ConnectionFailure | null = null;
    const onSecure = (socket: TLSSocket) => {
      sawTls = true;
      if (!pin) return;
      const problem = pinnedCertificateProblem(socket.getPeerCertificate(), pin, certificateHost(profile));
      if (problem === null) return;
      pinFailure = new ConnectionFailure({
        kind: 'certificate-changed',
        message: `Refused before logging in: ${problem}. Nothing was sent but the TLS handshake; nothing was changed on the server.`,
        action: 'If the server\'s certificate was renewed on purpose, check the new one with its administrator and trust it again; otherwise someone may be intercepting the connection.',
        nothingChanged: true,
        offerTrustServerCertificate: false,
        driverMessage: problem,
      });
      // Synchronously, before tedious resumes and writes LOGIN7 (with the password) into this socket.
      socket.destroy();
    };
    // The login's ENVCHANGE names the database the session starts in (tedious 'databaseChange').
    const onDatabase = (name: string) => {
      loginDatabase = name;
    };
    // A connection-level 'error' after login must not crash the host; the next request reports it.
    connection.on('error', () => undefined);
    connection.on('errorMessage', onLoginError);
    connection.on('secure', onSecure);
    connection.on('databaseChange', onDatabase);
    const onAbort = () => {
      if (settled) return;
      settled = true;
      connection.close();
      reject(failWith(Object.assign(new Error('Connect aborted.'), { name: 'AbortError' })));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    connection.connect((err) => {
      signal?.removeEventListener('abort', onAbort);
      connection.removeListener('errorMessage', onLoginError);
      connection.removeListener('secure', onSecure);
      connection.removeListener('databaseChange', onDatabase);
      if (settled) return;
      settled = true;
      if (pinFailure || err) {
        connection.close();
        reject(pinFailure ?? failWith(err, firstServerError));
        return;
      }
      resolve({ connection, sawTls, loginDatabase, certificate: pin ? 'pinned' : profile.trustServerCertificate ? 'not-verified' : 'verified' });
    });
  });
}

/**
 * encrypt_option as the server said it: TRUE → true, FALSE → false; no row, NULL, an empty or any other value → null
 * (not said), so the TLS handshake decides — an answer that says nothing is never read as "not encrypted" (issue 33
 * D10). The column is nvarchar(40), "Boolean value to describe whether encryption is enabled" (sys-dm-exec-connections).
 */
export function encryptOptionOf(rows: readonly Record<string, unknown>[]): boolean | null {
  const value = rows[0]?.encrypt_option;
  const said = typeof value === 'string' ? value.trim().toUpperCase() : typeof value === 'boolean' ? String(value).toUpperCase() : '';
  return said === 'TRUE' ? true : said === 'FALSE' ? false : null;
}

/** Reads encrypt_option for this session; null when the login may not read the DMV or the server said nothing. */
async function readEncryptOption(client: SqlClient): Promise<boolean | null> {
  try {
    return encryptOptionOf(await client.query(ENCRYPTION_CHECK_SQL));
  } catch (err) {
    if (isPermissionError(err)) return null;
    throw err;
  }
}

/**
 * Encryption was requested: the server must confirm it (encrypt_option = TRUE), or the connection is refused.
 * Without VIEW SERVER STATE the DMV is unreadable; then the TLS handshake tedious completed is the evidence
 * (strict mode cannot log in without TLS at all).
 */
export async function verifyEncryption(
  client: SqlClient,
  requested: true | 'strict',
  sawTls: boolean,
): Promise<{ encrypted: true; evidence: 'server' | 'client' }> {
  const serverSays = await readEncryptOption(client);
  const encrypted = serverSays ?? (requested === 'strict' || sawTls);
  if (!encrypted) {
    throw new ConnectionFailure({
      kind: 'encryption-not-verified',
      message:
        serverSays === false
          ? 'Encryption was requested, but the server reports this connection as not encrypted (sys.dm_exec_connections.encrypt_option). The connection was closed; nothing was changed on the server.'
          : 'Encryption was requested, but no TLS session was seen and the server could not be asked. The connection was closed; nothing was changed on the server.',
      action: 'Configure TLS on the server, or set "Encrypt" to false for this profile if an unencrypted connection is acceptable.',
      nothingChanged: true,
      offerTrustServerCertificate: false,
      driverMessage: serverSays === false ? 'encrypt_option <> TRUE' : 'no TLS handshake observed',
    });
  }
  return { encrypted: true, evidence: serverSays === null ? 'client' : 'server' };
}

export async function connect(profile: ConnectionProfile, secret: string | undefined, options: ConnectOptions): Promise<TediousSession> {
  const { connection, sawTls, loginDatabase, certificate } = await openConnection(profile, secret, options.role, options.signal);
  const session = new TediousSession(connection, options.role);
  if (loginDatabase !== null) session.databaseHistory.push(loginDatabase);
  try {
    const setup = options.role === 'monitor' ? monitorSetupSql(options.lockTimeoutMs ?? 5000) : WORKLOAD_SETUP_SQL;
    const rows = await session.query(setup);
    session.spid = Number(rows[0]?.spid ?? 0);
    if (options.role === 'monitor') session.atLogin = rows[0] ?? null;

    if (profile.encrypt !== false) {
      const verdict = await verifyEncryption(session, profile.encrypt, sawTls);
      session.encrypted = verdict.encrypted;
      session.encryptionEvidence = verdict.evidence;
      session.certificate = certificate;
    }
    return session;
  } catch (err) {
    await session.close();
    if (err instanceof ConnectionFailure) throw err;
    throw new ConnectionFailure(classifyConnectionError(err, { profile }), { cause: err });
  }
}
