// What a durability comparison will do, decided before anything changes: the run order (alternating so drift does
// not favour one mode), the setup/measured split of the script, and the plan the UI/CLI asks the user to confirm.
import type { SqlClient } from '../db/types';
import { captureDatabaseInfo, captureServerIdentity, grantContextOf, preflightPermissions, valueOf, type DatabaseInfo, type GrantContext, type PreflightResult } from '../probes';
import { DATA_LOSS_CAVEAT, alterDurabilitySql } from './durabilityGuard';
import { figureSourceOf, readTargetDatabase } from './profileRun';
import type { DurabilityMode, FigureSource } from './types';

export interface PlannedRun {
  mode: DurabilityMode;
  /** 0-based repetition of this mode; warm-up runs have repetition -1. */
  repetition: number;
  warmup: boolean;
}

/**
 * Repetition r runs the modes in order when r is even and reversed when odd (A B, B A, A B …), so a slow drift
 * (cache warming, log growth) lands on each mode equally. The warm-up runs the first mode once, not counted.
 */
export function runOrder(modes: readonly DurabilityMode[], repetitions: number, warmup: boolean): PlannedRun[] {
  if (modes.length === 0) throw new RangeError('At least one mode is needed.');
  if (!Number.isInteger(repetitions) || repetitions < 1) throw new RangeError('Repetitions must be a whole number ≥ 1.');
  const out: PlannedRun[] = [];
  if (warmup) out.push({ mode: modes[0]!, repetition: -1, warmup: true });
  for (let r = 0; r < repetitions; r++) {
    const ordered = r % 2 === 0 ? modes : [...modes].reverse();
    for (const mode of ordered) out.push({ mode, repetition: r, warmup: false });
  }
  return out;
}

export { SETUP_END_MARKER, splitSetup, type SplitScript } from './setupMarkers';

export interface PlanIssue {
  code: 'in-use' | 'system-database' | 'cdc' | 'replication' | 'change-tracking' | 'availability-group' | 'not-online' | 'no-alter-permission' | 'allowed-without-delayed-commits' | 'nothing-to-measure';
  message: string;
}

export interface ComparisonPlan {
  server: string;
  serverVersion: string;
  source: FigureSource;
  database: string;
  databaseId: number;
  currentSetting: DurabilityMode;
  modes: DurabilityMode[];
  repetitions: number;
  warmup: boolean;
  order: PlannedRun[];
  /** Every ALTER the comparison may run, the restore last. */
  statements: string[];
  restoreStatement: string;
  dataLossCaveat: string;
  /** Any refusal means the comparison will not run. */
  refusals: PlanIssue[];
  warnings: PlanIssue[];
  canProceed: boolean;
  /** The GRANT that would allow the toggle, when ALTER is missing. */
  grant: string | null;
}

export interface PlanOptions {
  server: string;
  modes?: DurabilityMode[];
  repetitions?: number;
  warmup?: boolean;
  /** Whether the measured batches contain COMMIT ... WITH (DELAYED_DURABILITY = ON) (from analyze()). */
  workloadHasDelayedCommits?: boolean;
  measuredBatchCount?: number;
  /** Availability-group members are refused unless the user accepts the caveat explicitly. */
  allowAvailabilityGroup?: boolean;
}

export const SYSTEM_DATABASES = ['master', 'tempdb', 'model', 'msdb'];

/** Pure rules: what refuses or warns for this database (tests drive it with crafted DatabaseInfo). */
export function evaluatePlanIssues(db: DatabaseInfo, preflight: PreflightResult | null, options: PlanOptions): { refusals: PlanIssue[]; warnings: PlanIssue[]; grant: string | null } {
  const refusals: PlanIssue[] = [];
  const warnings: PlanIssue[] = [];
  const modes = options.modes ?? ['DISABLED', 'FORCED'];
  if (SYSTEM_DATABASES.includes(db.name.toLowerCase())) {
    refusals.push({ code: 'system-database', message: `${db.name} is a system database: Durability Lens never changes its settings. Run the workload in a user database.` });
  }
  if (db.state && db.state.toUpperCase() !== 'ONLINE') {
    refusals.push({ code: 'not-online', message: `${db.name} is ${db.state}, not ONLINE.` });
  }
  if (db.cdcEnabled) {
    refusals.push({ code: 'cdc', message: `Change data capture is enabled on ${db.name}; delayed durability is not supported for databases using CDC (Learn: Control Transaction Durability).` });
  }
  if (db.published) {
    refusals.push({ code: 'replication', message: `${db.name} is published for replication; delayed durability is not supported with transactional replication (Learn: Control Transaction Durability).` });
  }
  if (valueOf(db.changeTracking) === true) {
    warnings.push({ code: 'change-tracking', message: `Change tracking is on for ${db.name}: transactions that write to change-tracked tables are always fully durable, so those show no difference.` });
  }
  if (db.inAvailabilityGroup) {
    const issue: PlanIssue = {
      code: 'availability-group',
      message: `${db.name} is in an availability group: delayed durable commits have no durability guarantee on the primary or any secondary, and control returns before a synchronous secondary acknowledges.`,
    };
    if (options.allowAvailabilityGroup) warnings.push(issue);
    else refusals.push(issue);
  }
  let grant: string | null = null;
  const alterMissing = preflight?.missing.find((m) => m.measurement === 'durabilityToggle');
  if (alterMissing) {
    grant = alterMissing.grant;
    refusals.push({ code: 'no-alter-permission', message: `The login lacks ALTER on ${db.name}, which switching DELAYED_DURABILITY needs. Ask for: ${alterMissing.grant}` });
  }
  if (modes.includes('ALLOWED') && options.workloadHasDelayedCommits === false) {
    warnings.push({ code: 'allowed-without-delayed-commits', message: 'ALLOWED only delays commits written WITH (DELAYED_DURABILITY = ON); this workload has none, so ALLOWED will behave like DISABLED.' });
  }
  if (options.measuredBatchCount === 0) {
    refusals.push({ code: 'nothing-to-measure', message: 'Every batch is setup: nothing is left to measure after the setup-end marker.' });
  }
  return { refusals, warnings, grant };
}

/** The plan plus the login/user/version it was made for (the comparison builds GRANT advice from it). */
export interface PreparedPlan {
  plan: ComparisonPlan;
  grantContext: GrantContext;
}

/** Reads server, database and permissions from the MONITOR connection and describes the comparison. Changes nothing. */
export async function preparePlan(monitor: SqlClient, options: PlanOptions): Promise<PreparedPlan> {
  const modes = [...new Set(options.modes ?? (['DISABLED', 'FORCED'] as DurabilityMode[]))];
  const repetitions = options.repetitions ?? 3;
  const warmup = options.warmup ?? true;
  const identity = await captureServerIdentity(monitor);
  const target = await readTargetDatabase(monitor);
  const ctx = grantContextOf(identity, target.databaseName);
  const db = await captureDatabaseInfo(monitor, target.databaseId, ctx);
  let preflight: PreflightResult | null = null;
  try {
    preflight = await preflightPermissions(monitor, ctx);
  } catch {
    preflight = null; // the ALTER itself will then say whether it is allowed
  }
  const { refusals, warnings, grant } = evaluatePlanIssues(db, preflight, { ...options, modes });
  const restoreStatement = alterDurabilitySql(db.name, db.delayedDurability);
  const plan: ComparisonPlan = {
    server: options.server,
    serverVersion: identity.versionText,
    source: figureSourceOf(identity.versionText),
    database: db.name,
    databaseId: db.databaseId,
    currentSetting: db.delayedDurability,
    modes,
    repetitions,
    warmup,
    order: runOrder(modes, repetitions, warmup),
    statements: [...modes.map((m) => alterDurabilitySql(db.name, m)), restoreStatement],
    restoreStatement,
    dataLossCaveat: DATA_LOSS_CAVEAT,
    refusals,
    warnings,
    canProceed: refusals.length === 0,
    grant,
  };
  return { plan, grantContext: ctx };
}

/** The plan as plain text for the CLI (and the UI's confirmation dialog body). */
export function describePlan(plan: ComparisonPlan): string {
  const lines = [
    `Server:   ${plan.server}${plan.source === 'stand-in' ? ' (Durability Lens stand-in, not a real SQL Server)' : ''}`,
    `Database: ${plan.database} (DELAYED_DURABILITY is ${plan.currentSetting} now)`,
    `Modes:    ${plan.modes.join(', ')} × ${plan.repetitions}${plan.warmup ? ' + 1 warm-up run' : ''}`,
    `Order:    ${plan.order.map((r) => (r.warmup ? `(${r.mode} warm-up)` : r.mode)).join(' ')}`,
    'Statements that will run (from the monitor connection):',
    ...plan.statements.map((s) => `  ${s}`),
    `Afterwards the database is set back to ${plan.currentSetting} and verified.`,
    `Caveat:   ${plan.dataLossCaveat}`,
  ];
  for (const w of plan.warnings) lines.push(`Warning:  ${w.message}`);
  for (const r of plan.refusals) lines.push(`Refused:  ${r.message}`);
  return lines.join('\n');
}
