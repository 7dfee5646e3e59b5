// Connection profiles as stored in the `durabilityLens.connections` setting (no secrets, ever): validation, the
// mapping to src/db's ConnectionProfile, and imports from an ADO.NET connection string or an mssql profile.
import { normaliseFingerprint } from './certificateCodes';
import { parseDataSource, profileFromConnectionString } from './connectionString';
import { definedFields } from '../shared/definedFields';
import type { AuthenticationProfile, ConnectionProfile } from './types';

export const CONNECTIONS_SETTING = 'connections';
export const FULL_CONNECTIONS_SETTING = 'durabilityLens.connections';

export const AUTHENTICATION_TYPES = [
  'sql',
  'ntlm',
  'entra-password',
  'entra-default',
  'entra-access-token',
  'entra-service-principal',
  'entra-msi-vm',
  'entra-msi-app-service',
] as const;
export type AuthenticationType = (typeof AUTHENTICATION_TYPES)[number];

/** One entry of `durabilityLens.connections`. Flat so settings.json stays easy to edit by hand. */
export interface StoredProfile {
  name: string;
  server: string;
  port?: number;
  instanceName?: string;
  database: string;
  authenticationType: AuthenticationType;
  user?: string;
  domain?: string;
  clientId?: string;
  tenantId?: string;
  encrypt: boolean | 'strict';
  trustServerCertificate: boolean;
  /** SHA-256 fingerprint of the one certificate trusted for this profile ("Trust this certificate"); encrypt true only. */
  certificateSha256?: string;
  applicationName?: string;
  /** A development database: the comparison runs without the confirmation dialog. */
  development: boolean;
}

/** The types whose secret (password, token, client secret) lives in SecretStorage. */
export function needsSecret(type: AuthenticationType): boolean {
  return type === 'sql' || type === 'ntlm' || type === 'entra-password' || type === 'entra-access-token' || type === 'entra-service-principal';
}

export function secretLabel(type: AuthenticationType): string {
  if (type === 'entra-access-token') return 'access token';
  if (type === 'entra-service-principal') return 'client secret';
  return 'password';
}

/** What a stored secret belongs to: the profile's name AND where it logs in, as whom, how. */
export type SecretIdentity = Pick<StoredProfile, 'name' | 'server' | 'port' | 'instanceName' | 'user' | 'authenticationType'>;

/**
 * SecretStorage key of a profile's secret: name (case-insensitive, as profiles are matched), server with port or
 * instance, user and authentication type. A profile renamed onto another's name, or re-pointed at another server
 * or login (e.g. by editing settings.json), finds no secret and asks — it never receives another profile's password.
 */
export function secretKey(p: SecretIdentity): string {
  const where = p.instanceName ? `\\${p.instanceName.trim().toLowerCase()}` : `,${p.port ?? 1433}`;
  return `durabilityLens.connection:${JSON.stringify([p.name.trim().toLowerCase(), `${p.server.trim().toLowerCase()}${where}`, p.user ?? '', p.authenticationType])}`;
}

/** The key versions up to 0.x used (profile name only); removed when a profile's secret is stored, replaced or forgotten. */
export function legacySecretKey(profileName: string): string {
  return `durabilityLens.connection:${profileName.trim().toLowerCase()}`;
}

export type Validation = { ok: true; profile: StoredProfile } | { ok: false; errors: string[] };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** Checks one settings entry; every problem is named so the user can fix settings.json. */
export function validateStoredProfile(raw: unknown): Validation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, errors: ['A connection must be an object.'] };
  const r = raw as Record<string, unknown>;
  const errors: string[] = [];
  const name = str(r.name);
  const server = str(r.server);
  if (!name) errors.push('"name" is required.');
  if (!server) errors.push('"server" is required.');
  const label = name ? `Connection "${name}": ` : '';
  if ('password' in r || 'secret' in r || 'token' in r) {
    errors.push(`${label}passwords and tokens are not read from settings; remove them and connect again (Durability Lens keeps them in VS Code's secret storage).`);
  }
  let port: number | undefined;
  if (r.port !== undefined) {
    if (typeof r.port !== 'number' || !Number.isInteger(r.port) || r.port < 1 || r.port > 65535) errors.push(`${label}"port" must be a whole number 1–65535.`);
    else port = r.port;
  }
  const instanceName = str(r.instanceName);
  if (port !== undefined && instanceName) errors.push(`${label}set either "port" or "instanceName", not both.`);
  const authenticationType = (r.authenticationType ?? 'sql') as AuthenticationType;
  if (!AUTHENTICATION_TYPES.includes(authenticationType)) errors.push(`${label}"authenticationType" must be one of ${AUTHENTICATION_TYPES.join(', ')}.`);
  const user = str(r.user);
  const domain = str(r.domain);
  const clientId = str(r.clientId);
  const tenantId = str(r.tenantId);
  if ((authenticationType === 'sql' || authenticationType === 'ntlm' || authenticationType === 'entra-password') && !user) errors.push(`${label}"user" is required for ${authenticationType} authentication.`);
  if (authenticationType === 'ntlm' && !domain) errors.push(`${label}"domain" is required for NTLM authentication.`);
  if ((authenticationType === 'entra-password' || authenticationType === 'entra-service-principal') && !clientId) errors.push(`${label}"clientId" is required for ${authenticationType}.`);
  if (authenticationType === 'entra-service-principal' && !tenantId) errors.push(`${label}"tenantId" is required for entra-service-principal.`);
  const encrypt = r.encrypt === undefined ? true : r.encrypt;
  if (encrypt !== true && encrypt !== false && encrypt !== 'strict') errors.push(`${label}"encrypt" must be true, false or "strict".`);
  let certificateSha256: string | undefined;
  if (r.certificateSha256 !== undefined) {
    const fp = typeof r.certificateSha256 === 'string' ? normaliseFingerprint(r.certificateSha256) : null;
    if (!fp) errors.push(`${label}"certificateSha256" must be a SHA-256 fingerprint (64 hex digits, e.g. "AB:CD:…").`);
    else certificateSha256 = fp;
  }
  for (const key of ['trustServerCertificate', 'development'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'boolean') errors.push(`${label}"${key}" must be true or false.`);
  }
  if (errors.length > 0) return { ok: false, errors };
  const applicationName = str(r.applicationName);
  return {
    ok: true,
    profile: definedFields({
      name: name!,
      server: server!,
      port,
      instanceName,
      database: str(r.database) ?? 'master',
      authenticationType,
      user,
      domain,
      clientId,
      tenantId,
      encrypt: encrypt as boolean | 'strict',
      trustServerCertificate: r.trustServerCertificate === true,
      certificateSha256,
      applicationName,
      development: r.development === true,
    }),
  };
}

/** Reads the whole setting: valid profiles, and the problems of the invalid ones (duplicates included). */
export function readStoredProfiles(raw: unknown): { profiles: StoredProfile[]; problems: string[] } {
  const profiles: StoredProfile[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { profiles, problems };
  if (!Array.isArray(raw)) return { profiles, problems: [`${FULL_CONNECTIONS_SETTING} must be an array.`] };
  const seen = new Set<string>();
  raw.forEach((entry, i) => {
    const v = validateStoredProfile(entry);
    if (!v.ok) {
      problems.push(`Entry ${i + 1}: ${v.errors.join(' ')}`);
      return;
    }
    const key = v.profile.name.toLowerCase();
    if (seen.has(key)) {
      problems.push(`Entry ${i + 1}: another connection is already named "${v.profile.name}".`);
      return;
    }
    seen.add(key);
    profiles.push(v.profile);
  });
  return { profiles, problems };
}

function authenticationOf(p: StoredProfile): AuthenticationProfile {
  switch (p.authenticationType) {
    case 'sql':
      return { type: 'sql', user: p.user ?? '' };
    case 'ntlm':
      return { type: 'ntlm', user: p.user ?? '', domain: p.domain ?? '' };
    case 'entra-password':
      return definedFields({ type: 'entra-password', user: p.user ?? '', clientId: p.clientId ?? '', tenantId: p.tenantId || undefined });
    case 'entra-default':
      return definedFields({ type: 'entra-default', clientId: p.clientId || undefined });
    case 'entra-access-token':
      return { type: 'entra-access-token' };
    case 'entra-service-principal':
      return { type: 'entra-service-principal', clientId: p.clientId ?? '', tenantId: p.tenantId ?? '' };
    case 'entra-msi-vm':
      return definedFields({ type: 'entra-msi-vm', clientId: p.clientId || undefined });
    case 'entra-msi-app-service':
      return definedFields({ type: 'entra-msi-app-service', clientId: p.clientId || undefined });
  }
}

/** Settings entry → what src/db connect() takes; `database` overrides the profile's (Switch Database). */
export function toConnectionProfile(p: StoredProfile, database?: string): ConnectionProfile {
  return definedFields({
    server: p.server,
    port: p.port,
    instanceName: p.instanceName || undefined,
    database: database ?? p.database,
    authentication: authenticationOf(p),
    encrypt: p.encrypt,
    trustServerCertificate: p.trustServerCertificate,
    pinnedCertificateSha256: p.certificateSha256 || undefined,
    appName: p.applicationName || undefined,
  });
}

/** ConnectionProfile (e.g. parsed from a connection string) → settings entry, without its secret. */
export function fromConnectionProfile(name: string, c: ConnectionProfile, development = false): StoredProfile {
  const a = c.authentication;
  const stored: StoredProfile = definedFields({
    name,
    server: c.server,
    port: c.port,
    instanceName: c.instanceName || undefined,
    database: c.database,
    authenticationType: a.type,
    encrypt: c.encrypt,
    trustServerCertificate: c.trustServerCertificate,
    applicationName: c.appName || undefined,
    development,
  });
  if ('user' in a) stored.user = a.user;
  if ('domain' in a) stored.domain = a.domain;
  if ('clientId' in a && a.clientId) stored.clientId = a.clientId;
  if ('tenantId' in a && a.tenantId) stored.tenantId = a.tenantId;
  return stored;
}

const CLEAR_TEXT_IMPORT_NOTE =
  'Encrypt=False became "encrypt": true: in Microsoft.Data.SqlClient false means Optional (the server may still negotiate TLS), while here it would send the password in clear text. Set "encrypt": false in the profile yourself if the server has no TLS at all.';

/**
 * An ADO.NET connection string becomes a profile plus the password, which the caller puts in SecretStorage. An import
 * keeps the strongest equivalent of what the string asked for: Optional and False (= Optional in SqlClient 5) become
 * encrypt true, with a note saying so.
 */
export function profileFromAdoNet(name: string, connectionString: string): { profile: StoredProfile; secret: string | undefined; notes: string[] } {
  const parsed = profileFromConnectionString(connectionString);
  const notes = [...parsed.notes];
  let profile = fromConnectionProfile(name, parsed.profile);
  if (profile.encrypt === false) {
    profile = { ...profile, encrypt: true };
    notes.push(CLEAR_TEXT_IMPORT_NOTE);
  }
  return { profile, secret: parsed.secret, notes };
}

export type MssqlImport = { ok: true; profile: StoredProfile; secret: string | undefined; askForSecret: boolean; notes: string[] } | { ok: false; name: string; reason: string };

/**
 * One entry of the mssql extension's `mssql.connections` (fields as vscode-mssql's IConnectionInfo names them:
 * server, database, user, password, port, authenticationType SqlLogin/Integrated/AzureMFA, encrypt
 * boolean or Mandatory/Optional/Strict, trustServerCertificate, profileName, connectionString).
 */
export function importMssqlConnection(raw: unknown, index: number): MssqlImport {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const server = str(r.server);
  const name = str(r.profileName) ?? (server ? `${server}${str(r.database) ? ` / ${str(r.database)}` : ''}` : `mssql connection ${index + 1}`);
  try {
    if (str(r.connectionString)) {
      const { profile, secret, notes } = profileFromAdoNet(name, r.connectionString as string);
      return { ok: true, profile, secret, askForSecret: secret === undefined && needsSecret(profile.authenticationType), notes };
    }
    if (!server) return { ok: false, name, reason: 'it has no server.' };
    const auth = str(r.authenticationType) ?? 'SqlLogin';
    let authenticationType: AuthenticationType;
    if (auth === 'SqlLogin') authenticationType = 'sql';
    else if (auth === 'AzureMFA') authenticationType = 'entra-default';
    else return { ok: false, name, reason: `its authentication (${auth}) is not supported by Durability Lens; add it with SQL login, NTLM or a Microsoft Entra type.` };
    if (authenticationType === 'sql' && !str(r.user)) return { ok: false, name, reason: 'it has no user name.' };
    const source = parseDataSource(server);
    const port = typeof r.port === 'number' && r.port > 0 ? r.port : source.port;
    const enc = typeof r.encrypt === 'string' ? r.encrypt.toLowerCase() : r.encrypt;
    // Strict stays strict; Mandatory/true/absent are true; Optional/false become true too (see CLEAR_TEXT_IMPORT_NOTE).
    const encrypt: boolean | 'strict' = enc === 'strict' ? 'strict' : true;
    const notes = enc === false || enc === 'optional' || enc === 'false' ? [enc === 'optional' ? 'encrypt "Optional" became "encrypt": true: Durability Lens cannot leave encryption to the server, and without it the password is sent in clear text.' : CLEAR_TEXT_IMPORT_NOTE] : [];
    const profile: StoredProfile = definedFields({
      name,
      server: source.server,
      port: source.instanceName ? undefined : port,
      instanceName: source.instanceName || undefined,
      database: str(r.database) ?? 'master',
      authenticationType,
      user: authenticationType === 'sql' ? str(r.user)! : undefined,
      encrypt,
      trustServerCertificate: r.trustServerCertificate === true,
      applicationName: str(r.applicationName),
      development: false,
    });
    const secret = str(r.password);
    return { ok: true, profile, secret, askForSecret: secret === undefined && needsSecret(authenticationType), notes };
  } catch (err) {
    return { ok: false, name, reason: (err as Error).message };
  }
}

/** "host,1433 · db" as the status bar and messages show a profile. */
export function describeStoredServer(p: Pick<StoredProfile, 'server' | 'port' | 'instanceName'>): string {
  if (p.instanceName) return `${p.server}\\${p.instanceName}`;
  return p.port !== undefined ? `${p.server},${p.port}` : p.server;
}

/** Adds or replaces (by name, case-insensitively) a profile in the settings array, keeping the others as they were. */
export function upsertProfile(current: readonly unknown[], profile: StoredProfile): unknown[] {
  const key = profile.name.toLowerCase();
  const index = current.findIndex((e) => typeof (e as { name?: unknown })?.name === 'string' && (e as { name: string }).name.trim().toLowerCase() === key);
  const next = [...current];
  if (index >= 0) next[index] = profile;
  else next.push(profile);
  return next;
}

export function removeProfile(current: readonly unknown[], name: string): unknown[] {
  const key = name.toLowerCase();
  return current.filter((e) => !(typeof (e as { name?: unknown })?.name === 'string' && (e as { name: string }).name.trim().toLowerCase() === key));
}
