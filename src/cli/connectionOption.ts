// `--connection NAME|CONNECTION_STRING` for the CLI: a profile name from the `durabilityLens.connections` setting
// (read from VS Code's USER settings.json, or the file --settings names; JSON with comments) or an ADO.NET connection
// string (parsed by src/db). Passwords come from the environment, never from argv; one inside a connection string is
// accepted with a warning.
//
// Never from `<cwd>/.vscode/settings.json`: a cloned repository could define a profile named like the user's ("prod")
// pointing at its own host with encrypt:false and development:true, and receive the password in clear and run the
// ALTERs unconfirmed. The extension makes the setting application-scoped for the same reason (package.json).
import { toConnectionProfile, validateStoredProfile } from '../db/storedProfiles';
import { parse as parseJsoncText, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import { profileFromConnectionString } from '../db/connectionString';
import type { ConnectionProfile } from '../db/types';

export const CONNECTIONS_KEY = 'durabilityLens.connections';

/**
 * VS Code's user settings.json per platform (VS Code docs "User and Workspace Settings": %APPDATA%\Code\User,
 * $HOME/Library/Application Support/Code/User, $HOME/.config/Code/User), joined the platform's way. An empty or
 * relative APPDATA / XDG_CONFIG_HOME is ignored (the XDG spec asks it): it would name a folder under the current
 * directory, which a cloned repository controls — the same reason `<cwd>/.vscode/settings.json` is never read.
 * `product` is the folder name: `Code`, `Code - Insiders`, `VSCodium`.
 */
export function userSettingsPath(platform: NodeJS.Platform = process.platform, env: Readonly<Record<string, string | undefined>> = process.env, home = homedir(), product = 'Code'): string {
  const p = platform === 'win32' ? win32 : posix;
  const absolute = (value: string | undefined): string | null => (value !== undefined && value !== '' && p.isAbsolute(value) ? value : null);
  if (platform === 'win32') return p.join(absolute(env.APPDATA) ?? p.join(home, 'AppData', 'Roaming'), product, 'User', 'settings.json');
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', product, 'User', 'settings.json');
  return p.join(absolute(env.XDG_CONFIG_HOME) ?? p.join(home, '.config'), product, 'User', 'settings.json');
}

export interface SettingsCandidate {
  path: string;
  /** Which editor's user settings: "VS Code", "VS Code Insiders", "VSCodium", "portable VS Code". */
  editor: string;
}

/**
 * Where the user settings of each editor the CLI knows are, in the order they are searched: a portable VS Code's
 * (VSCODE_PORTABLE, which VS Code sets for the processes it starts, e.g. its terminal: `<dir>/user-data/User`; only
 * an absolute folder, for the reason above), then VS Code's, VS Code Insiders' and VSCodium's.
 */
export function userSettingsCandidates(platform: NodeJS.Platform = process.platform, env: Readonly<Record<string, string | undefined>> = process.env, home = homedir()): SettingsCandidate[] {
  const p = platform === 'win32' ? win32 : posix;
  const portable = env.VSCODE_PORTABLE;
  const list: SettingsCandidate[] = [];
  if (portable !== undefined && portable !== '' && p.isAbsolute(portable)) list.push({ path: p.join(portable, 'user-data', 'User', 'settings.json'), editor: 'portable VS Code' });
  for (const [product, editor] of [['Code', 'VS Code'], ['Code - Insiders', 'VS Code Insiders'], ['VSCodium', 'VSCodium']] as const) {
    list.push({ path: userSettingsPath(platform, env, home, product), editor });
  }
  return list;
}

/** settings.json is JSON with comments and trailing commas, read the way VS Code reads it (jsonc-parser). */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsoncText(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new SyntaxError(`${printParseErrorCode(first.error)} at offset ${first.offset}`);
  }
  return value;
}

/** The profiles array from a parsed settings object: the dotted key, or the nested form. */
export function connectionsOf(settings: unknown): unknown[] {
  if (typeof settings !== 'object' || settings === null) return [];
  const s = settings as Record<string, unknown>;
  const flat = s[CONNECTIONS_KEY];
  if (Array.isArray(flat)) return flat;
  const nested = (s.durabilityLens as Record<string, unknown> | undefined)?.connections;
  return Array.isArray(nested) ? nested : [];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * One settings entry → ConnectionProfile, by the same rules the extension applies to the same setting
 * (src/db/storedProfiles.ts); a string names every problem.
 */
export function profileFromSettingsEntry(entry: unknown): ConnectionProfile | string {
  const checked = validateStoredProfile(entry);
  if (!checked.ok) return checked.errors.join(' ');
  const profile = toConnectionProfile(checked.profile);
  return { ...profile, appName: profile.appName ?? 'Durability Lens CLI' };
}

/** Heuristic: "Server=...;..." has a key=value pair; a profile name has none. */
export function looksLikeConnectionString(value: string): boolean {
  return /^\s*[A-Za-z][A-Za-z ]*\s*=/.test(value);
}

export interface ResolvedConnection {
  profile: ConnectionProfile;
  /** From the environment, or from the connection string. */
  secret: string | null;
  /** Said on stderr (a password in the connection string, which settings file was used). */
  warnings: string[];
  /** The settings entry has "development": true (compare then needs no --yes, like the extension's dialog). */
  development: boolean;
  /** The settings entry's name as --connection gave it; null for a connection string (no entry to be marked). */
  named: string | null;
}

export interface ResolveContext {
  readFile(path: string): string;
  exists(path: string): boolean;
  /** Only to say that a workspace's .vscode/settings.json was ignored; it is never used for a connection. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** --settings PATH: only this file is read. */
  settingsPath: string | null;
  passwordEnv: string;
  /** One user settings file to read instead of the editors' (tests). */
  userSettings?: string;
  /** The platform and home folder whose editors' settings are searched (default: this machine's). */
  platform?: NodeJS.Platform;
  home?: string;
}

/** How a "not in this file" answer starts, so the search goes on to the next editor's settings. */
const NOT_IN_FILE = 'no connection named ';

export function resolveConnection(value: string, ctx: ResolveContext): ResolvedConnection | string {
  const envSecret = ctx.env[ctx.passwordEnv];
  const fromEnv = envSecret === undefined || envSecret === '' ? null : envSecret;
  if (looksLikeConnectionString(value)) {
    let parsed;
    try {
      parsed = profileFromConnectionString(value);
    } catch (err) {
      return `--connection: ${(err as Error).message}`;
    }
    const warnings: string[] = [];
    if (parsed.secret !== undefined) {
      warnings.push(`Warning: the connection string holds a password, which other users of this machine may see in the process list. Prefer ${ctx.passwordEnv} (or --password-env VAR) and leave Password out.`);
    }
    return { profile: { ...parsed.profile, appName: parsed.profile.appName ?? 'Durability Lens CLI' }, secret: parsed.secret ?? fromEnv, warnings, development: false, named: null };
  }
  if (ctx.settingsPath) return fromSettingsFile(value, ctx, { path: ctx.settingsPath, editor: '--settings' }, fromEnv);
  const candidates = ctx.userSettings ? [{ path: ctx.userSettings, editor: 'VS Code' }] : userSettingsCandidates(ctx.platform, ctx.env, ctx.home);
  const present = candidates.filter((c) => ctx.exists(c.path));
  if (present.length === 0) {
    const tried = candidates.length === 1 ? `VS Code's user settings file ${candidates[0]!.path} does not exist` : `no user settings file of VS Code, VS Code Insiders or VSCodium exists (looked for ${candidates.map((c) => c.path).join(', ')})`;
    return `no connection named "${value}": ${tried}; pass --settings PATH or an ADO.NET connection string`;
  }
  const missing: string[] = [];
  for (const candidate of present) {
    const found = fromSettingsFile(value, ctx, candidate, fromEnv);
    if (typeof found !== 'string' || !found.startsWith(NOT_IN_FILE)) return found;
    missing.push(candidate.path);
  }
  return `${NOT_IN_FILE}"${value}" in ${CONNECTIONS_KEY} of ${missing.join(', ')}`;
}

/** The profile `value` from one settings file; a string starting with NOT_IN_FILE when the file does not define it. */
function fromSettingsFile(value: string, ctx: ResolveContext, file: SettingsCandidate, fromEnv: string | null): ResolvedConnection | string {
  const path = file.path;
  let settings: unknown;
  try {
    settings = parseJsonc(ctx.readFile(path));
  } catch (err) {
    return `cannot read the settings file ${path}: ${(err as Error).message}`;
  }
  const warnings: string[] = [];
  const workspaceSettings = join(ctx.cwd, '.vscode', 'settings.json');
  if (!ctx.settingsPath && ctx.exists(workspaceSettings)) {
    warnings.push(`Note: ${workspaceSettings} is not read for connections (a repository's settings must not choose the server that receives your password); using the user settings.`);
  }
  const entry = connectionsOf(settings).find((c) => typeof c === 'object' && c !== null && str((c as { name?: unknown }).name)?.toLowerCase() === value.trim().toLowerCase());
  if (!entry) return `${NOT_IN_FILE}"${value}" in ${CONNECTIONS_KEY} of ${path}`;
  const profile = profileFromSettingsEntry(entry);
  if (typeof profile === 'string') return `the connection "${value}" in ${path} is not usable: ${profile}`;
  warnings.push(`Using the connection "${value}" from ${path}${file.editor === '--settings' ? '' : ` (the user settings of ${file.editor})`}.`);
  return { profile, secret: fromEnv, warnings, development: (entry as { development?: unknown }).development === true, named: value };
}
