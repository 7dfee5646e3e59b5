// GRANT text for "Copy GRANTs", rebuilt from structured facts of a run — which measurements are missing, the server's
// major version and engine edition, the login, the database user and the database — never copied from a stored
// `grant` string. A comparison JSON opened from disk is a file anyone could have written: its `grant` texts could be
// any SQL, and the clipboard would present them as this tool's advice. Here the permission comes from
// requiredPermission (our own allow-list per measurement) and every name goes through quoteName.
import { MASTER_FILES_PERMISSION } from './fileStats';
import { AZURE_SERVER_STATE_READER, grantStatement, MEASUREMENT_LABELS, requiredPermission, type GrantContext, type MeasurementName, type RequiredPermission } from './permissions';

/**
 * Permissions a missing entry may name instead of its measurement's usual one (issue 11): sys.master_files visibility
 * when the monitor sat outside the database, and the Azure SQL Database low-tier role. Anything else a run (or file)
 * claims is ignored in favour of requiredPermission.
 */
const OTHER_REQUIREMENTS: readonly RequiredPermission[] = [MASTER_FILES_PERMISSION, { permission: AZURE_SERVER_STATE_READER, scope: 'server-role' }];

/** A missing entry: a measurement name, or `{measurement, required}` as runs and preflights record them. */
function requirementOf(entry: unknown, ctx: GrantContext): RequiredPermission | null {
  const measurement = typeof entry === 'object' && entry !== null ? (entry as { measurement?: unknown }).measurement : entry;
  if (!isMeasurement(measurement)) return null;
  const usual = requiredPermission(measurement, ctx);
  const claimed = typeof entry === 'object' && entry !== null ? (entry as { required?: unknown }).required : undefined;
  if (typeof claimed === 'object' && claimed !== null) {
    const { permission, scope } = claimed as { permission?: unknown; scope?: unknown };
    const known = [...OTHER_REQUIREMENTS, ...(usual ? [usual] : [])].find((r) => r.permission === permission && r.scope === scope);
    if (known) return known;
  }
  return usual;
}

/** What a run (or a file claiming to be one) says about itself; every field is checked before use. */
export interface GrantFacts {
  /** Measurement names that were missing, or `{measurement, required}` entries (unknown names are ignored). */
  measurements: readonly unknown[];
  majorVersion: unknown;
  engineEdition: unknown;
  loginName: unknown;
  userName: unknown;
  databaseName: unknown;
}

function isMeasurement(name: unknown): name is MeasurementName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(MEASUREMENT_LABELS, name);
}

/** A GrantContext only when every fact has the right type (a file may hold anything). */
export function grantContextFromFacts(f: Omit<GrantFacts, 'measurements'>): GrantContext | null {
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1000 ? v : null);
  const name = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 256 ? v : null);
  const majorVersion = int(f.majorVersion);
  const engineEdition = int(f.engineEdition);
  const loginName = name(f.loginName);
  const userName = name(f.userName);
  const databaseName = name(f.databaseName);
  if (majorVersion === null || engineEdition === null || loginName === null || userName === null || databaseName === null) return null;
  return { majorVersion, engineEdition, loginName, userName, databaseName };
}

/** One statement per missing measurement that needs a permission, in our words; [] when the facts are unusable. */
export function rebuildGrants(f: GrantFacts): string[] {
  const ctx = grantContextFromFacts(f);
  if (!ctx) return [];
  const out: string[] = [];
  for (const m of f.measurements) {
    const required = requirementOf(m, ctx);
    if (required) out.push(grantStatement(required, ctx));
  }
  return [...new Set(out)];
}

/** The GRANT of one measurement, rebuilt (null when none is needed or the facts are unusable). */
export function rebuildGrant(measurement: unknown, f: Omit<GrantFacts, 'measurements'>): string | null {
  return rebuildGrants({ ...f, measurements: [measurement] })[0] ?? null;
}
