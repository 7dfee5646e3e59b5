// What the mssql extension's shared connection becomes in Durability Lens (vscode-free, unit-tested): the connection
// string mssql hands over (Connection Sharing API, getConnectionString) or its saved profile (mssql.connections) →
// a Durability Lens profile and the secret when there is one, or why it cannot be used and what to do instead.
//
// Durability Lens measures over its own two TDS connections (tedious), so it needs what tedious can log in with:
// SQL logins, NTLM with an explicit domain, user and password, and Microsoft Entra types. Windows integrated security
// (the logged-on user through SSPI/Kerberos, no password) is not among tedious 20's authentication types
// (tedious lib/connection.js accepts default, ntlm, token-credential and the azure-active-directory-* types only):
// such a connection is offered as NTLM with a password instead (docs/authentication.md).
import { parse } from '@tediousjs/connection-string';
import { l10n } from '../l10n';
import { importMssqlConnection, profileFromAdoNet, type StoredProfile } from '../../db/storedProfiles';
import { parseDataSource } from '../../db/connectionString';

/** Where the server is, kept from an integrated connection for the NTLM profile offered instead. */
export type ServerPart = Pick<StoredProfile, 'server' | 'port' | 'instanceName' | 'database' | 'encrypt' | 'trustServerCertificate'>;

export type SharedConnection =
  /** Usable: `askSecret` means mssql did not hand the password over (ask the user once). */
  | { ok: true; profile: StoredProfile; secret: string | undefined; askSecret: boolean; notes: string[] }
  /** Windows integrated security: offered as NTLM (server and database kept; domain, user and password asked). */
  | { ok: false; reason: 'integrated'; message: string; server: ServerPart }
  /** Anything else Durability Lens cannot log in with (the message says which and what to do). */
  | { ok: false; reason: 'unsupported'; message: string };

export const INTEGRATED_MESSAGE =
  'uses Windows integrated authentication (the signed-in Windows user, no password). Durability Lens measures over its own two connections, and its driver (tedious 20) cannot log in as the signed-in user: it has no Kerberos or SSPI. It can log in with NTLM when you give your domain, user name and password (kept in VS Code\'s secret storage), or with a SQL login.';

function keyTrue(v: unknown): boolean {
  return v === true || (typeof v === 'string' && /^(true|yes|sspi)$/i.test(v.trim()));
}

/** `Authentication=` keywords of Microsoft.Data.SqlClient that have no equivalent in Durability Lens's driver (translated when used). */
const UNSUPPORTED_AUTH: Record<string, () => string> = {
  activedirectoryintegrated: () => l10n.t("Microsoft Entra integrated authentication (the signed-in Windows account) is not available to Durability Lens's driver; add the connection with Add Connection and a Microsoft Entra type (default credential chain, service principal, managed identity) instead."),
  activedirectorypassword: () => l10n.t('Microsoft Entra password sign-in needs an application (client) id in Durability Lens; add the connection with Add Connection → "Microsoft Entra password".'),
  activedirectoryserviceprincipal: () => l10n.t('a Microsoft Entra service principal needs its tenant id in Durability Lens; add the connection with Add Connection → "Microsoft Entra service principal".'),
  activedirectorydevicecodeflow: () => l10n.t('Microsoft Entra device-code sign-in is not available to Durability Lens\'s driver; add the connection with Add Connection → "Microsoft Entra default credential chain" (it uses your Azure CLI or VS Code sign-in).'),
  activedirectoryworkloadidentity: () => l10n.t("Microsoft Entra workload identity is not available to Durability Lens's driver; use a managed identity or the default credential chain."),
};

function serverPartOf(dataSource: string, database: string, encrypt: unknown, trust: boolean, port?: unknown): ServerPart | string {
  let source: ReturnType<typeof parseDataSource>;
  try {
    source = parseDataSource(dataSource);
  } catch (err) {
    return (err as Error).message;
  }
  if (!source.server) return l10n.t('it names no server.');
  const p = typeof port === 'number' && port > 0 ? port : source.port;
  const part: ServerPart = {
    server: source.server,
    database: database || 'master',
    // Strict stays strict; everything else is encrypted (as the imports do: without TLS the password crosses in clear).
    encrypt: String(encrypt).toLowerCase() === 'strict' ? 'strict' : true,
    trustServerCertificate: trust,
  };
  // A named instance is found through the SQL Browser; a port only when there is no instance name.
  if (source.instanceName) part.instanceName = source.instanceName;
  else if (p !== undefined) part.port = p;
  return part;
}

/**
 * A connection string from mssql's getConnectionString (Microsoft.Data.SqlClient keywords: Data Source, Initial
 * Catalog, Integrated Security, User ID, Password, Authentication, Encrypt, Trust Server Certificate …).
 * `name` is the profile name to use.
 */
export function fromMssqlConnectionString(name: string, connectionString: string): SharedConnection {
  let raw: ReturnType<typeof parse>;
  try {
    raw = parse(connectionString);
  } catch (err) {
    return { ok: false, reason: 'unsupported', message: l10n.t('its connection string could not be read ({0}).', (err as Error).message) };
  }
  const get = (key: string): unknown => raw.get(key);
  const auth = String(get('authentication') ?? '').toLowerCase().replace(/[\s_-]+/g, '');
  const trust = keyTrue(get('trust server certificate')) || keyTrue(get('trustservercertificate'));
  if (keyTrue(get('integrated security')) || keyTrue(get('trusted_connection'))) {
    const server = serverPartOf(String(get('data source') ?? get('server') ?? get('address') ?? ''), String(get('initial catalog') ?? get('database') ?? ''), get('encrypt') ?? 'true', trust);
    if (typeof server === 'string') return { ok: false, reason: 'unsupported', message: server };
    return { ok: false, reason: 'integrated', message: INTEGRATED_MESSAGE, server };
  }
  if (UNSUPPORTED_AUTH[auth]) return { ok: false, reason: 'unsupported', message: UNSUPPORTED_AUTH[auth]!() };
  const notes: string[] = [];
  // ActiveDirectoryInteractive (mssql's "Microsoft Entra ID - Universal with MFA") has no interactive sign-in in
  // tedious: the default credential chain (Azure CLI, VS Code's account, environment) signs in as the same user.
  let text = connectionString;
  if (auth === 'activedirectoryinteractive') {
    text = `${connectionString};Authentication=ActiveDirectoryDefault`;
    notes.push(l10n.t('Microsoft Entra interactive (MFA) sign-in became the default credential chain: Durability Lens signs in with your Azure CLI, Azure PowerShell or VS Code Azure account (sign in there first).'));
  }
  let parsed: ReturnType<typeof profileFromAdoNet>;
  try {
    parsed = profileFromAdoNet(name, text);
  } catch (err) {
    return { ok: false, reason: 'unsupported', message: (err as Error).message };
  }
  let profile = parsed.profile;
  // SqlClient 5 spells it with spaces, which the connection-string schema does not map: keep the user's choice.
  if (!profile.trustServerCertificate && trust) {
    profile = { ...profile, trustServerCertificate: true };
    notes.push(l10n.t("Trust Server Certificate=True was kept: the server's certificate is not verified for this connection, as in mssql."));
  }
  const secret = parsed.secret === '' ? undefined : parsed.secret;
  return { ok: true, profile, secret, askSecret: profile.authenticationType === 'sql' && secret === undefined, notes: [...parsed.notes, ...notes] };
}

/** One entry of mssql.connections (user settings), for mssql versions without getConnectionString. */
export function fromMssqlProfile(entry: unknown, index: number): SharedConnection {
  const r = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  if (r.authenticationType === 'Integrated') {
    const server = serverPartOf(String(r.server ?? ''), typeof r.database === 'string' ? r.database : '', r.encrypt ?? true, r.trustServerCertificate === true, r.port);
    if (typeof server === 'string') return { ok: false, reason: 'unsupported', message: server };
    return { ok: false, reason: 'integrated', message: INTEGRATED_MESSAGE, server };
  }
  const imported = importMssqlConnection(entry, index);
  if (!imported.ok) return { ok: false, reason: 'unsupported', message: imported.reason };
  return { ok: true, profile: imported.profile, secret: imported.secret, askSecret: imported.askForSecret, notes: imported.notes };
}

/** The NTLM profile offered for an integrated connection, from what the user typed ("DOMAIN\\user" or "user@domain"). */
export function ntlmProfileOf(name: string, server: ServerPart, account: string): StoredProfile | string {
  const trimmed = account.trim();
  const backslash = /^([^\\@\s]+)\\([^\\@\s]+)$/.exec(trimmed);
  const at = /^([^\\@\s]+)@([^\\@\s]+)$/.exec(trimmed);
  const [domain, user] = backslash ? [backslash[1]!, backslash[2]!] : at ? [at[2]!, at[1]!] : [null, null];
  if (!domain || !user) return l10n.t('Enter the Windows account as DOMAIN\\user (or user@domain).');
  return { name, ...server, authenticationType: 'ntlm', user, domain, development: false };
}
