// A comparison file opened from disk ("Open Comparison File…") is a file anyone could have written. Before the panel,
// the exports or the history see it: it must fit a size limit (N14), and every text in it that we would present as
// something to run — the GRANTs of "To enable:" and "Copy GRANTs", the Statements tab's GRANT, the preflight's script,
// the restore statement — is rebuilt from our own templates (N5). The file never chooses who is granted: its GRANTs
// name a placeholder principal, which "Copy GRANTs" fills with the connection's own login and user, quoted. vscode-free.
import { quoteName } from '../db/quote';
import { rebuildGrant, rebuildGrants } from '../probes/grantRebuild';
import { alterDurabilitySql } from '../profile/durabilityGuard';
import { DURABILITY_MODES, type DurabilityMode, type RunResult } from '../profile/types';
import type { ComparisonDocument } from '../report/document';

/** Largest comparison file opened. A comparison this version writes is a few MB at most; past this, nothing is read. */
export const MAX_COMPARISON_FILE_BYTES = 32 * 1024 * 1024;

/** What a rebuilt GRANT names instead of a principal from the file (never valid SQL: it can't run as it stands). */
export const LOGIN_PLACEHOLDER = '<your login>';
export const USER_PLACEHOLDER = '<your database user>';
// Principal names no server returns (C0 controls), so a GRANT rebuilt with them can be told from any other text.
const LOGIN_SENTINEL = '\u0001durability-lens-login\u0001';
const USER_SENTINEL = '\u0001durability-lens-user\u0001';

export function bytesText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;
}

/** The refusal for a file over the limit (null when it fits). */
export function tooLargeText(name: string, bytes: number): string | null {
  if (bytes <= MAX_COMPARISON_FILE_BYTES) return null;
  return `${name} is ${bytesText(bytes)} (${bytes.toLocaleString('en-US')} bytes); Durability Lens opens comparison files up to ${bytesText(MAX_COMPARISON_FILE_BYTES)} (a comparison it writes is far smaller). Nothing was read or opened.`;
}

/** Our template text with the placeholder principals written as such (the sentinels only live inside this module). */
function withPlaceholders(text: string): string {
  return text.split(quoteName(LOGIN_SENTINEL)).join(LOGIN_PLACEHOLDER).split(quoteName(USER_SENTINEL)).join(USER_PLACEHOLDER);
}

/**
 * A database name from a file that holds a placeholder or a sentinel would let "Copy GRANTs" put the login inside it
 * (and a crafted one close its brackets early): such a name builds no GRANT at all.
 */
function usableDatabaseName(name: unknown): unknown {
  if (typeof name !== 'string') return name;
  return name.includes('\u0001') || name.includes(LOGIN_PLACEHOLDER) || name.includes(USER_PLACEHOLDER) ? undefined : name;
}

/** The facts a run states about its server and database (checked in grantRebuild), with placeholder principals. */
export function placeholderFacts(run: RunResult | undefined) {
  const identity = run?.server?.identity;
  return {
    majorVersion: identity?.majorVersion,
    engineEdition: identity?.engineEdition,
    loginName: LOGIN_SENTINEL,
    userName: USER_SENTINEL,
    databaseName: usableDatabaseName(run?.database?.name ?? run?.preflight?.databaseName),
  };
}

/** One GRANT from our templates for a measurement (and the permission a run says it needs), principal a placeholder. */
export function templateGrant(entry: unknown, facts: ReturnType<typeof placeholderFacts>): string | null {
  const grant = rebuildGrant(entry, facts);
  return grant === null ? null : withPlaceholders(grant);
}

/** The whole GRANT script from our templates, principals placeholders. */
export function templateGrantScript(measurements: readonly unknown[], facts: ReturnType<typeof placeholderFacts>): string {
  return rebuildGrants({ ...facts, measurements }).map(withPlaceholders).join('\n\n');
}

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** A copy of the run whose every GRANT and restore text is ours; everything else (figures, names as data) stays. */
function neutraliseRun(source: RunResult): RunResult {
  const run = structuredClone(source);
  const facts = placeholderFacts(run);
  run.missing = asArray<RunResult['missing'][number]>(run.missing).map((m) => ({
    ...m,
    grant: m?.grant === null || m?.grant === undefined ? null : templateGrant({ measurement: m.measurement, required: m.required }, facts),
  }));
  const p = run.preflight as (RunResult['preflight'] & Record<string, unknown>) | undefined | null;
  if (p && typeof p === 'object') {
    p.missing = asArray<NonNullable<RunResult['preflight']>['missing'][number]>(p.missing).map((m) => ({ ...m, grant: templateGrant({ measurement: m?.measurement, required: m?.required }, facts) ?? '' }));
    p.checks = asArray<NonNullable<RunResult['preflight']>['checks'][number]>(p.checks).map((c) => ({ ...c, grant: templateGrant({ measurement: asArray<string>(c?.neededFor)[0], required: { permission: c?.permission, scope: c?.scope } }, facts) ?? '' }));
    p.grantScript = templateGrantScript(p.missing.map((m) => ({ measurement: m.measurement, required: m.required })), facts);
  }
  const attribution = run.statementAttribution as { grant?: unknown } | null | undefined;
  // The statement trace needs what the log-flush trace needs: an event session (ALTER ANY EVENT SESSION or its kin).
  if (attribution && typeof attribution === 'object' && attribution.grant !== null && attribution.grant !== undefined) attribution.grant = templateGrant('extendedEvents', facts);
  return run;
}

function isMode(value: unknown): value is DurabilityMode {
  return typeof value === 'string' && (DURABILITY_MODES as readonly string[]).includes(value);
}

/** The document with its runs neutralised and its restore statement rebuilt (or dropped when the file's facts can't build one). */
export function neutraliseDocument(doc: ComparisonDocument): ComparisonDocument {
  const modes = doc.modes.map((m) => ({ ...m, runs: m.runs.map(neutraliseRun) }));
  const warmupRuns = doc.warmupRuns.map(neutraliseRun);
  let restore = doc.restore;
  if (restore && typeof restore === 'object') {
    const database = typeof restore.database === 'string' ? restore.database : doc.plan?.database;
    const statement = typeof database === 'string' && isMode(restore.originalSetting) ? alterDurabilitySql(database, restore.originalSetting) : '';
    // The file's message may embed its own "Run: …"; what we show is our sentence about its status.
    restore = { ...restore, restoreStatement: statement, message: `From a comparison file: the restore was recorded as ${String(restore.status)}${isMode(restore.originalSetting) ? ` (original setting ${restore.originalSetting})` : ''}.` } as typeof restore;
  }
  const plan = doc.plan ? { ...doc.plan, grant: null, restoreStatement: '', statements: [] } : doc.plan;
  return { ...doc, modes, warmupRuns, restore, plan: plan as ComparisonDocument['plan'] };
}

/**
 * "Copy GRANTs" of data whose GRANTs name the placeholders: filled with the connection's own login and database user,
 * quoted; left as placeholders (`filled` false) when there is no connection to take them from. The placeholders occur
 * only where our templates put the grantee: no name from a file may contain them (usableDatabaseName).
 */
export function fillGrantees(script: string, principal: { loginName: string; userName: string } | null): { text: string; filled: boolean; needed: boolean } {
  const needed = script.includes(LOGIN_PLACEHOLDER) || script.includes(USER_PLACEHOLDER);
  if (!needed || !principal || !principal.loginName || !principal.userName) return { text: script, filled: false, needed };
  return { text: script.split(LOGIN_PLACEHOLDER).join(quoteName(principal.loginName)).split(USER_PLACEHOLDER).join(quoteName(principal.userName)), filled: true, needed };
}
