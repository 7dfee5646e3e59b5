// ADO.NET connection string → ConnectionProfile + secret (for importing profiles and for the integration suite's
// DURABILITY_LENS_TEST_SERVER). Parsing is @tediousjs/connection-string's; the mapping of keys is ours.
import { definedFields } from '../shared/definedFields';
import { parse, MSSQL_SCHEMA } from '@tediousjs/connection-string';
import type { AuthenticationProfile, ConnectionProfile } from './types';

export interface ParsedConnectionString {
  profile: ConnectionProfile;
  /** Password (or token); undefined when the string has none. */
  secret: string | undefined;
  /** How a setting was mapped to something stronger than it said (shown to the user). */
  notes: string[];
}

/** "tcp:host,1433" / "host\\INSTANCE" / "host" → server + port or instance name. */
export function parseDataSource(dataSource: string): { server: string; port?: number; instanceName?: string } {
  const source = dataSource.trim().replace(/^tcp:/i, '');
  const comma = source.lastIndexOf(',');
  if (comma > 0) {
    const port = Number(source.slice(comma + 1).trim());
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`Not a port number in "${dataSource}".`);
    return { server: source.slice(0, comma).trim(), port };
  }
  const slash = source.indexOf('\\');
  if (slash > 0) return { server: source.slice(0, slash), instanceName: source.slice(slash + 1) };
  return { server: source };
}

/**
 * Microsoft.Data.SqlClient 5 accepts Strict / Mandatory / Optional besides true / false; false is the same as Optional
 * ("TLS encryption is optional ... if the server requires encryption, encryption will be negotiated", Learn:
 * dotnet/api/microsoft.data.sqlclient.sqlconnectionencryptoption). tedious has no "optional": Optional becomes
 * encrypt true (the stronger choice) with a note, never a silent false.
 */
function encryptOption(raw: string | undefined): { encrypt: boolean | 'strict'; note?: string } {
  const v = raw?.trim().toLowerCase();
  if (v === 'strict') return { encrypt: 'strict' };
  if (v === 'true' || v === 'yes' || v === 'mandatory') return { encrypt: true };
  if (v === 'optional') return { encrypt: true, note: 'Encrypt=Optional became "encrypt": true: Durability Lens cannot leave encryption to the server, and without it the password is sent in clear text.' };
  if (v === 'false' || v === 'no') return { encrypt: false };
  return { encrypt: true }; // tedious's default: encrypt
}

/**
 * Windows integrated authentication (single sign-on with the signed-in account: SSPI, Kerberos) is not a tedious
 * authentication type — tedious offers `default` (SQL login), `ntlm` (an explicit domain account and password) and the
 * Entra types (tedious src/connection.ts, the authentication.type check; tediousjs/tedious#415, #1526).
 */
export const INTEGRATED_SECURITY_UNSUPPORTED =
  'Integrated Security / Trusted_Connection (Windows single sign-on) is not supported: the driver Durability Lens uses (tedious) cannot log in as the signed-in Windows account (no SSPI or Kerberos). Use a SQL login (User Id and a password), or NTLM with an explicit account: a durabilityLens.connections profile with "authenticationType": "ntlm", "user" and "domain", its password in secret storage (VS Code) or in DURABILITY_LENS_PASSWORD (CLI). See docs/agents.md#windows-authentication.';

/** Integrated Security=True/Yes/SSPI or Trusted_Connection=True/Yes (ADO.NET's spellings). */
export function isIntegratedSecurity(...values: unknown[]): boolean {
  return values.some((v) => typeof v === 'string' && /^(true|yes|sspi)$/i.test(v.trim()));
}

export function profileFromConnectionString(connectionString: string): ParsedConnectionString {
  const raw = parse(connectionString);
  const schema = raw.toSchema(MSSQL_SCHEMA) as Record<string, unknown>;
  const dataSource = schema['data source'];
  if (typeof dataSource !== 'string' || dataSource.trim() === '') throw new Error('The connection string has no Server / Data Source.');
  const user = typeof schema['user id'] === 'string' ? (schema['user id'] as string) : undefined;
  const authKeyword = typeof schema.authentication === 'string' ? (schema.authentication as string).toLowerCase().replace(/\s+/g, '') : '';
  let authentication: AuthenticationProfile;
  if (authKeyword === 'activedirectorydefault') authentication = { type: 'entra-default' };
  else if (authKeyword === 'activedirectorymanagedidentity' || authKeyword === 'activedirectorymsi') authentication = { type: 'entra-msi-vm' };
  else if (!user) throw new Error(isIntegratedSecurity(raw.get('integrated security'), raw.get('trusted_connection')) ? INTEGRATED_SECURITY_UNSUPPORTED : 'The connection string has no User Id (integrated security is not supported here).');
  else authentication = { type: 'sql', user };
  const rawEncrypt = raw.get('encrypt');
  const encryption = encryptOption(typeof rawEncrypt === 'string' ? rawEncrypt : undefined);
  const appName = schema['application name'];
  const timeout = schema['connect timeout'];
  const database = schema['initial catalog'];
  return {
    profile: definedFields({
      ...parseDataSource(dataSource),
      database: typeof database === 'string' && database !== '' ? database : 'master',
      authentication,
      encrypt: encryption.encrypt,
      trustServerCertificate: schema.trustservercertificate === true,
      appName: typeof appName === 'string' && appName !== '' ? appName : undefined,
      connectTimeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout * 1000 : undefined,
    }),
    secret: typeof schema.password === 'string' ? (schema.password as string) : undefined,
    notes: encryption.note ? [encryption.note] : [],
  };
}
