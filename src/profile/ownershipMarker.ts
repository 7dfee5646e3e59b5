// The comparison's claim on a database, kept ON the database so it outlives every connection: an extended property of
// the database itself, written before the first ALTER and dropped after the verified restore. It names the owner
// (host, process, window, run, start time) and the setting to go back to, so a second process, window or machine
// sees "a comparison owns this database since …, original setting X" and refuses, and recovery restores the
// marker's original — never what it happens to read now. Liveness lives in ownerLiveness.ts.
//
// Learn: sp_addextendedproperty "If all object types and names are null, the property belongs to the current
// database itself"; @value sql_variant of at most 7,500 bytes; it fails when the property exists (error 15233), which
// makes the claim atomic; "Users can add extended properties to objects they own or have ALTER or CONTROL permissions
// on" — the ALTER on the database a comparison needs anyway; db_ddladmin may not (it may not ALTER DATABASE either).
// Applies to SQL Server, Azure SQL Database and Azure SQL Managed Instance; not to system databases.
// https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-addextendedproperty-transact-sql
// sp_updateextendedproperty / sp_dropextendedproperty: the same permissions; 15217 when the property does not exist.
// sys.extended_properties: class 0 = the database (major_id 0), value sql_variant (read here CAST to nvarchar).
// https://learn.microsoft.com/sql/relational-databases/system-catalog-views/extended-properties-catalog-views-sys-extended-properties
import { hostname } from 'node:os';
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { sqlErrorsOf } from '../db/errors';
import { text } from '../probes/values';
import { alterDurabilitySql, isConnectionLost } from './durabilitySetting';
import { DURABILITY_MODES, type DurabilityMode } from './types';

/** The property's name: one per database, so a second claim fails with 15233 instead of overwriting the first. */
export const MARKER_NAME = 'durability_lens.owner';

export const READ_MARKER_SQL = `SELECT CAST(value AS nvarchar(4000)) AS value
FROM sys.extended_properties
WHERE class = 0 AND major_id = 0 AND minor_id = 0 AND name = @name;`;

export const ADD_MARKER_SQL = `EXEC sys.sp_addextendedproperty @name = @name, @value = @value;`;
export const UPDATE_MARKER_SQL = `EXEC sys.sp_updateextendedproperty @name = @name, @value = @value;`;
export const DROP_MARKER_SQL = `EXEC sys.sp_dropextendedproperty @name = @name;`;

/** 15233: "Property cannot be added. Property … already exists"; 15217: "… does not exist" (errors 15000–15999). */
export const MARKER_EXISTS_ERROR = 15233;
export const MARKER_MISSING_ERROR = 15217;

/** What the marker holds (JSON, a few hundred bytes: far below the 7,500-byte limit). */
export interface OwnershipMarker {
  v: 1;
  /** The run (its restore-journal entry has the same id). */
  run: string;
  host: string;
  pid: number;
  /** 'cli' or the VS Code window (vscode.env.sessionId). */
  window: string;
  /** ISO time the claim was written. */
  since: string;
  /** The setting before the first change: what the database goes back to. */
  original: DurabilityMode;
  /** The setting this run most recently applied (updated before each ALTER); null before the first. */
  applied: DurabilityMode | null;
}

const MAX_FIELD = 256;

export function newMarker(fields: Omit<OwnershipMarker, 'v' | 'host' | 'pid' | 'since'>, now: () => Date = () => new Date()): OwnershipMarker {
  // Bounded (parseMarker refuses longer fields) and far below the property's 7,500-byte limit.
  return { v: 1, run: fields.run.slice(0, MAX_FIELD), host: hostname().slice(0, MAX_FIELD), pid: process.pid, window: fields.window.slice(0, MAX_FIELD), since: now().toISOString(), original: fields.original, applied: fields.applied };
}

/** A marker that is there but is not one this version can read (another tool's, a hand edit, a newer version). */
export interface UnreadableMarker {
  unreadable: true;
  /** The raw value, cut short, for the message (shown through `shownText`). */
  raw: string;
}

export type MarkerReading = OwnershipMarker | UnreadableMarker | null;

export function isUnreadable(m: MarkerReading): m is UnreadableMarker {
  return m !== null && (m as UnreadableMarker).unreadable === true;
}

/** Parses a marker value defensively: every field checked, strings bounded; anything else is unreadable. */
export function parseMarker(raw: string | null): MarkerReading {
  if (raw === null) return null;
  const unreadable: UnreadableMarker = { unreadable: true, raw: raw.slice(0, 200) };
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return unreadable;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return unreadable;
  const d = doc as Record<string, unknown>;
  const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_FIELD;
  const mode = (v: unknown): v is DurabilityMode => typeof v === 'string' && (DURABILITY_MODES as readonly string[]).includes(v);
  if (d.v !== 1 || !str(d.run) || !str(d.host) || !str(d.window) || !str(d.since) || !mode(d.original)) return unreadable;
  if (typeof d.pid !== 'number' || !Number.isSafeInteger(d.pid) || d.pid <= 0) return unreadable;
  if (d.applied !== null && !mode(d.applied)) return unreadable;
  return { v: 1, run: d.run, host: d.host, pid: d.pid, window: d.window, since: d.since, original: d.original, applied: d.applied as DurabilityMode | null };
}

export async function readMarker(client: SqlClient): Promise<MarkerReading> {
  const rows = await client.query(READ_MARKER_SQL, [{ name: 'name', type: 'nvarchar', value: MARKER_NAME }]);
  return rows.length === 0 ? null : parseMarker(text(rows[0]!.value) ?? '');
}

const params = (marker: OwnershipMarker) => [
  { name: 'name', type: 'nvarchar' as const, value: MARKER_NAME },
  { name: 'value', type: 'nvarchar' as const, value: JSON.stringify(marker) },
];

/** The marker could not be written: nothing was changed (the caller refuses the comparison). */
export class MarkerWriteError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MarkerWriteError';
  }
}

/** Adds the marker; false when one already exists (15233: another claim won). Other errors throw MarkerWriteError. */
export async function addMarker(client: SqlClient, database: string, marker: OwnershipMarker, grant?: string): Promise<boolean> {
  try {
    await client.execute(ADD_MARKER_SQL, params(marker));
    return true;
  } catch (err) {
    if (sqlErrorsOf(err).some((e) => e.number === MARKER_EXISTS_ERROR)) return false;
    if (isConnectionLost(err)) throw err;
    const first = sqlErrorsOf(err)[0];
    const why = first ? `SQL error ${first.number}: ${first.message.replace(/\.+$/, '')}` : (err as Error).message;
    throw new MarkerWriteError(
      `Could not mark ${quoteName(database)} as owned by this comparison (${why}). The marker (an extended property of the database) needs the same ALTER permission on the database as the comparison itself${grant ? `: ${grant}` : ''}. Nothing was changed.`,
      { cause: err },
    );
  }
}

/** Records the mode about to be applied. Throws as the server does (the caller stops before the ALTER). */
export async function updateMarker(client: SqlClient, marker: OwnershipMarker): Promise<void> {
  await client.execute(UPDATE_MARKER_SQL, params(marker));
}

/** Drops the marker when it is `run`'s; 'not-ours' leaves another run's (or an unreadable) marker alone. */
export async function dropMarkerOf(client: SqlClient, run: string): Promise<'dropped' | 'absent' | 'not-ours'> {
  const current = await readMarker(client);
  if (current === null) return 'absent';
  if (isUnreadable(current) || current.run !== run) return 'not-ours';
  try {
    await client.execute(DROP_MARKER_SQL, [{ name: 'name', type: 'nvarchar', value: MARKER_NAME }]);
  } catch (err) {
    if (sqlErrorsOf(err).some((e) => e.number === MARKER_MISSING_ERROR)) return 'absent';
    throw err;
  }
  return 'dropped';
}

/** The statement a user runs to remove a marker by hand (shown when one is unreadable or its owner is gone). */
export function dropMarkerStatement(database: string): string {
  return `USE ${quoteName(database)}; EXEC sys.sp_dropextendedproperty @name = N'${MARKER_NAME}';`;
}

/** Server- or file-provided text shown as text: control and bidi characters become spaces, length bounded. */
export function shownText(value: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** "process 4242 on BUILD-7 (CLI), run 1b2c…, since 2026-…": who holds the database. */
export function describeMarkerOwner(marker: OwnershipMarker): string {
  const where = marker.window === 'cli' ? 'CLI' : `VS Code window ${shownText(marker.window, 40)}`;
  return `process ${marker.pid} on ${shownText(marker.host, 80)} (${where}), run ${shownText(marker.run, 40)}`;
}

/** The refusal's first sentence: who owns it since when, and what the setting was before it. */
export function describeClaim(database: string, marker: MarkerReading): string {
  if (marker === null) return `${quoteName(database)} is not owned by a comparison.`;
  if (isUnreadable(marker)) {
    return `${quoteName(database)} carries an ownership marker (extended property ${MARKER_NAME}) this version cannot read ("${shownText(marker.raw, 80)}"), so a comparison may own it. If none runs, remove it: ${dropMarkerStatement(database)}`;
  }
  const applied = marker.applied !== null && marker.applied !== marker.original ? `; it last set ${marker.applied}` : '';
  return `A comparison owns ${quoteName(database)} since ${shownText(marker.since, 40)}: ${describeMarkerOwner(marker)}; the original setting is ${marker.original}${applied} (restore statement: ${alterDurabilitySql(database, marker.original)})`;
}
