// User-facing text the extension shows (vscode-free, unit-tested): the comparison confirmation, the restore-journal
// prompt, the permission preflight summary and connection failures. Every text says what changes and what to do.
import type { ConnectionFailureInfo } from '../db/types';
import type { PreflightResult } from '../probes/permissions';
import type { ComparisonPlan } from '../profile/plan';
import type { RestoreEntry } from '../profile/restoreJournal';

export interface ModalText {
  message: string;
  detail: string;
}

/** The confirmation before a comparison: server, database, current setting, modes, statements and the caveat. */
export function comparisonConfirmation(plan: ComparisonPlan, profileName: string): ModalText {
  const standIn = plan.source === 'stand-in' ? ' (Durability Lens stand-in, not a real SQL Server)' : '';
  const modes = plan.modes.join(' and ');
  const detail = [
    `Server: ${plan.server}${standIn} (connection "${profileName}")`,
    `Database: ${plan.database}, DELAYED_DURABILITY is ${plan.currentSetting} now.`,
    `Runs: ${plan.modes.join(', ')} × ${plan.repetitions}${plan.warmup ? ' + 1 warm-up' : ''}, alternating order.`,
    '',
    'Statements (from a separate monitor connection):',
    ...plan.statements.map((s) => `  ${s}`),
    '',
    `Afterwards the database is set back to ${plan.currentSetting} and the setting is read back to verify it. ` +
      'The original setting is recorded first, so it is restored even after a crash or reload.',
    '',
    `Data-loss caveat: ${plan.dataLossCaveat} This applies to every session using the database while it is switched, not only this workload.`,
    ...plan.warnings.map((w) => `Warning: ${w.message}`),
  ].join('\n');
  return { message: `Switch DELAYED_DURABILITY of ${plan.database} on ${plan.server} between ${modes} to compare?`, detail };
}

/** Why a comparison did not start; null when it may. */
export function refusalText(plan: ComparisonPlan): string | null {
  if (plan.canProceed) return null;
  const grant = plan.grant ? ` GRANT needed: ${plan.grant}` : '';
  return `The comparison was not started and nothing was changed: ${plan.refusals.map((r) => r.message).join(' ')}${grant}`;
}

/** The prompt when the restore journal holds entries (a crash, a reload, or a restore that failed). */
export function restorePrompt(entries: readonly RestoreEntry[]): ModalText {
  const lines = entries.map((e) => `• ${e.database} on ${e.server}: back to ${e.originalSetting}${e.lastApplied ? ` (last set to ${e.lastApplied})` : ''}, recorded ${e.createdAt}\n  ${e.restoreStatement}`);
  return {
    message:
      entries.length === 1
        ? `A durability comparison did not finish restoring ${entries[0]!.database} on ${entries[0]!.server}. Restore DELAYED_DURABILITY to ${entries[0]!.originalSetting} now?`
        : `${entries.length} databases may still have a switched DELAYED_DURABILITY from an unfinished comparison. Restore them now?`,
    detail: `${lines.join('\n')}\n\nRestoring reads the current setting, runs the statement when it differs, and verifies it. "Later" keeps the record; you are asked again on the next connect.`,
  };
}

export interface PreflightSummary {
  /** One line for a notification; null when nothing is missing. */
  message: string | null;
  /** Output channel text: each missing measurement and the GRANT script. */
  log: string;
  grantScript: string;
}

export function preflightSummary(p: PreflightResult): PreflightSummary {
  if (p.missing.length === 0) {
    return { message: null, log: `Permissions of ${p.loginName} in ${p.databaseName}: every measurement is available.`, grantScript: '' };
  }
  const labels = [...new Set(p.missing.map((m) => m.label))];
  const log = [
    `Permissions of ${p.loginName} (user ${p.userName}) in ${p.databaseName}: these measurements will be missing:`,
    ...p.missing.map((m) => `  - ${m.label}`),
    'GRANT statements that enable them (run by an administrator):',
    p.grantScript,
  ].join('\n');
  return {
    message: `Connected, but ${labels.length} measurement${labels.length === 1 ? '' : 's'} will be missing (${labels.join('; ')}). The GRANT statements are in the output.`,
    log,
    grantScript: p.grantScript,
  };
}

/** A connection failure as one message: what happened + that nothing changed + what to do. */
export function connectionFailureText(info: ConnectionFailureInfo, profileName: string): string {
  return `Durability Lens could not connect with "${profileName}": ${info.message} ${info.action}`;
}

export function formatTimestamp(at: number): string {
  return new Date(at).toISOString().slice(11, 23);
}
