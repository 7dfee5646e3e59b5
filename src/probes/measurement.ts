// A measurement either has a value or says why not (missing permission with its GRANT, object absent on this
// server, a source that came back empty where it cannot be empty, other error) — so one failing probe never sinks
// the snapshot, and a figure that was not measured is never shown as a measured zero.
// "Not measured" by construction: every probe's public capture function returns a Measurement (the readers that
// throw stay private to their module), so a caller holds a discriminated union and TypeScript refuses `.value`
// until `status === 'ok'` was checked — the second case cannot be skipped by accident (issue 33, D1).
import { isMissingObjectError, isPermissionError, sqlErrorsOf } from '../db/errors';
import { grantFor, grantStatement, MEASUREMENT_LABELS, requiredPermission, type GrantContext, type MeasurementName, type RequiredPermission } from './permissions';

export type Measurement<T> = Measured<T> | NotMeasured;

/** The measured case: the only branch that carries a value. */
export interface Measured<T> {
  status: 'ok';
  value: T;
}

/** The not-measured case: why, and the GRANT (or setting) that would make it measurable. No value to misread. */
export interface NotMeasured {
  status: 'unavailable';
  measurement: MeasurementName;
  /**
   * 'permission': the login lacks a permission (grant says which); 'not-supported': the object does not exist here;
   * 'empty': the source answered with no rows where rows must exist (filtered by visibility, or a name mismatch).
   */
  cause: 'permission' | 'not-supported' | 'not-applicable' | 'empty' | 'error';
  reason: string;
  grant: string | null;
  /** The permission `grant` asks for, as data (the panel rebuilds GRANT text from it, never from `grant`). */
  required?: RequiredPermission | null;
  errorNumber: number | null;
}

export function ok<T>(value: T): Measurement<T> {
  return { status: 'ok', value };
}

export function notApplicable<T>(measurement: MeasurementName, reason: string): Measurement<T> {
  return { status: 'unavailable', measurement, cause: 'not-applicable', reason, grant: null, errorNumber: null };
}

/**
 * Thrown by a probe whose source answered with no rows where rows must exist (the database has files, a database has
 * its SQLServer:Databases counters, a session that ran has waits visible to us). SQL Server filters such rows
 * silently instead of raising a permission error, so an empty answer must never become "0": `measure` turns this
 * into an unavailable measurement with the reason and the GRANT (when one fixes it).
 */
export class EmptySourceError extends Error {
  /** The permission whose absence explains the empty answer (its GRANT is written for the login), if any. */
  readonly required: RequiredPermission | null;
  constructor(message: string, required: RequiredPermission | null) {
    super(message);
    this.name = 'EmptySourceError';
    this.required = required;
  }
}

/**
 * Thrown by a probe refused for a permission no documented GRANT names (e.g. the undocumented DBCC LOGINFO): the
 * measurement is "not measured" with this reason and no GRANT — never a GRANT for a different object.
 */
export class NoDocumentedGrantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoDocumentedGrantError';
  }
}

export function valueOf<T>(m: Measurement<T> | undefined): T | null {
  return m && m.status === 'ok' ? m.value : null;
}

/** The value, or an Error carrying the not-measured reason (for a caller that cannot go on without it, e.g. a plan). */
export function requireMeasured<T>(m: Measurement<T>): T {
  if (m.status === 'ok') return m.value;
  throw Object.assign(new Error(m.reason), { grant: m.grant, measurement: m.measurement });
}

/** The reason and GRANT of a not-measured figure, as one line for notes and JSON `…NotMeasured` keys. */
export function notMeasuredText(m: Pick<NotMeasured, 'reason' | 'grant'>): string {
  return m.grant ? `${m.reason} To enable: ${m.grant.replace(/\r?\n/g, ' ')}` : m.reason;
}

/** Runs one probe; converts permission / missing-object / other errors into an unavailable measurement. */
export async function measure<T>(measurement: MeasurementName, ctx: GrantContext, probe: () => Promise<T>): Promise<Measurement<T>> {
  try {
    return ok(await probe());
  } catch (err) {
    if (err instanceof EmptySourceError) {
      return {
        status: 'unavailable',
        measurement,
        cause: 'empty',
        reason: `Not measured: ${MEASUREMENT_LABELS[measurement]}: ${err.message}`,
        grant: err.required ? grantStatement(err.required, ctx) : null,
        required: err.required,
        errorNumber: null,
      };
    }
    if (err instanceof NoDocumentedGrantError) {
      return { status: 'unavailable', measurement, cause: 'permission', reason: `Not measured: ${MEASUREMENT_LABELS[measurement]}: ${err.message}`, grant: null, required: null, errorNumber: null };
    }
    const first = sqlErrorsOf(err)[0];
    const errorNumber = first?.number ?? null;
    const serverText = first?.message ?? (err as Error)?.message ?? String(err);
    const label = MEASUREMENT_LABELS[measurement];
    if (isPermissionError(err)) {
      return {
        status: 'unavailable',
        measurement,
        cause: 'permission',
        reason: `No ${label}: the login lacks a permission (server error ${errorNumber}: ${serverText}). The rest of the run is unaffected.`,
        grant: grantFor(measurement, ctx),
        required: requiredPermission(measurement, ctx),
        errorNumber,
      };
    }
    if (isMissingObjectError(err)) {
      return {
        status: 'unavailable',
        measurement,
        cause: 'not-supported',
        reason: `No ${label}: not available on this server version or platform (server error ${errorNumber}: ${serverText}).`,
        grant: null,
        errorNumber,
      };
    }
    return {
      status: 'unavailable',
      measurement,
      cause: 'error',
      reason: `No ${label}: ${serverText}`,
      grant: null,
      errorNumber,
    };
  }
}
