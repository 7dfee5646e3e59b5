// A measurement either has a value or says why not (missing permission with its GRANT, object absent on this
// server, other error) — so one failing probe never sinks the snapshot.
import { isMissingObjectError, isPermissionError, sqlErrorsOf } from '../db/errors';
import { grantFor, MEASUREMENT_LABELS, type GrantContext, type MeasurementName } from './permissions';

export type Measurement<T> =
  | { status: 'ok'; value: T }
  | {
      status: 'unavailable';
      measurement: MeasurementName;
      /** 'permission': the login lacks a permission (grant says which); 'not-supported': the object does not exist here. */
      cause: 'permission' | 'not-supported' | 'not-applicable' | 'error';
      reason: string;
      grant: string | null;
      errorNumber: number | null;
    };

export function ok<T>(value: T): Measurement<T> {
  return { status: 'ok', value };
}

export function notApplicable<T>(measurement: MeasurementName, reason: string): Measurement<T> {
  return { status: 'unavailable', measurement, cause: 'not-applicable', reason, grant: null, errorNumber: null };
}

export function valueOf<T>(m: Measurement<T> | undefined): T | null {
  return m && m.status === 'ok' ? m.value : null;
}

/** Runs one probe; converts permission / missing-object / other errors into an unavailable measurement. */
export async function measure<T>(measurement: MeasurementName, ctx: GrantContext, probe: () => Promise<T>): Promise<Measurement<T>> {
  try {
    return ok(await probe());
  } catch (err) {
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
