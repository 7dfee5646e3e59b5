// User-facing text the extension shows (vscode-free, unit-tested): the comparison confirmation, the restore-journal
// prompt, the permission preflight summary and connection failures. Every text says what changes and what to do.
// Each sentence goes through l10n.t (translatable; server and file strings enter only as {n} arguments).
import { l10n } from './l10n';
import { cutPoint, oneLineField, withVisibleControls } from '../shared/visibleText';
import type { ConnectionFailureInfo } from '../db/types';
import type { PreflightResult } from '../probes/permissions';
import type { ComparisonPlan } from '../profile/plan';
import type { RestoreEntry } from '../profile/restoreJournal';
import type { RunError } from '../profile/types';
import type { RoutineBody } from '../profile/workloadChoice';

export interface ModalText {
  message: string;
  detail: string;
}

/** The confirmation before a comparison: server, database, current setting, modes, statements and the caveat. */
export function comparisonConfirmation(plan: ComparisonPlan, profileName: string): ModalText {
  // Whole sentences only: a translated " and " or a translated parenthesis spliced into another sentence would not
  // read right in every language.
  const [first, second] = plan.modes;
  const message = plan.modes.length === 2
    ? l10n.t('Switch DELAYED_DURABILITY of {0} on {1} between {2} and {3} to compare?', oneLineField(plan.database), oneLineField(plan.server), first!, second!)
    : l10n.t('Switch DELAYED_DURABILITY of {0} on {1} through {2} to compare?', oneLineField(plan.database), oneLineField(plan.server), plan.modes.join(', '));
  const detail = [
    plan.source === 'stand-in'
      ? l10n.t('Server: {0} (Durability Lens stand-in, not a real SQL Server) (connection "{1}")', oneLineField(plan.server), oneLineField(profileName))
      : l10n.t('Server: {0} (connection "{1}")', oneLineField(plan.server), oneLineField(profileName)),
    l10n.t('Database: {0}, DELAYED_DURABILITY is {1} now.', oneLineField(plan.database), plan.currentSetting),
    plan.warmup
      ? l10n.t('Runs: {0} × {1} + 1 warm-up, alternating order.', plan.modes.join(', '), plan.repetitions)
      : l10n.t('Runs: {0} × {1}, alternating order.', plan.modes.join(', '), plan.repetitions),
    '',
    l10n.t('Statements (from a separate monitor connection):'),
    ...plan.statements.map((s) => `  ${oneLineField(s)}`),
    '',
    l10n.t('Afterwards the database is set back to {0} and the setting is read back to verify it. The original setting is recorded first, so it is restored even after a crash or reload.', plan.currentSetting),
    ...(plan.eventSession === 'database'
      ? [l10n.t('Each run also creates an Extended Events session ON DATABASE (durability_lens_…, log flushes only), and drops it after the run; durabilityLens.xe.enabled turns the trace off.')]
      : plan.eventSession === 'server'
        ? [l10n.t('Each run also creates an Extended Events session ON SERVER (durability_lens_…, log flushes only), and drops it after the run; durabilityLens.xe.enabled turns the trace off.')]
        : []),
    '',
    l10n.t('Data-loss caveat: {0} This applies to every session using the database while it is switched, not only this workload.', plan.dataLossCaveat),
    ...plan.warnings.map((w) => l10n.t('Warning: {0}', oneLineField(w.message))),
  ].join('\n');
  return { message, detail };
}

/** Why a comparison did not start; null when it may. */
export function refusalText(plan: ComparisonPlan): string | null {
  if (plan.canProceed) return null;
  const why = plan.refusals.map((r) => r.message).join(' ');
  return plan.grant
    ? l10n.t('The comparison was not started and nothing was changed: {0} GRANT needed: {1}', why, plan.grant)
    : l10n.t('The comparison was not started and nothing was changed: {0}', why);
}

/** The prompt when the restore journal holds entries (a crash, a reload, or a restore that failed). */
export function restorePrompt(entries: readonly RestoreEntry[]): ModalText {
  const lines = entries.map((e) =>
    (e.lastApplied
      ? l10n.t('• {0} on {1}: back to {2} (last set to {3}), recorded {4}', oneLineField(e.database), oneLineField(e.server), e.originalSetting, e.lastApplied, oneLineField(e.createdAt))
      : l10n.t('• {0} on {1}: back to {2}, recorded {3}', oneLineField(e.database), oneLineField(e.server), e.originalSetting, oneLineField(e.createdAt))) + `\n  ${oneLineField(e.restoreStatement)}`);
  return {
    message:
      entries.length === 1
        ? l10n.t('A durability comparison did not finish restoring {0} on {1}. Restore DELAYED_DURABILITY to {2} now?', oneLineField(entries[0]!.database), oneLineField(entries[0]!.server), entries[0]!.originalSetting)
        : l10n.t('{0} databases may still have a switched DELAYED_DURABILITY from an unfinished comparison. Restore them now?', entries.length),
    detail: `${lines.join('\n')}\n\n${l10n.t('Restoring reads the current setting, runs the statement when it differs, and verifies it. "Later" keeps the record; you are asked again on the next connect.')}`,
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
    return { message: null, log: l10n.t('Permissions of {0} in {1}: every measurement is available.', p.loginName, p.databaseName), grantScript: '' };
  }
  const labels = [...new Set(p.missing.map((m) => m.label))];
  const log = [
    l10n.t('Permissions of {0} (user {1}) in {2}: these measurements will be missing:', p.loginName, p.userName, p.databaseName),
    ...p.missing.map((m) => `  - ${m.label}`),
    l10n.t('GRANT statements that enable them (run by an administrator):'),
    p.grantScript,
  ].join('\n');
  return {
    message: labels.length === 1
      ? l10n.t('Connected, but 1 measurement will be missing ({0}). The GRANT statements are in the output.', labels.join('; '))
      : l10n.t('Connected, but {0} measurements will be missing ({1}). The GRANT statements are in the output.', labels.length, labels.join('; ')),
    log,
    grantScript: p.grantScript,
  };
}

/** A connection failure as one message: what happened + that nothing changed + what to do. */
export function connectionFailureText(info: ConnectionFailureInfo, profileName: string): string {
  return l10n.t('Durability Lens could not connect with "{0}": {1} {2}', profileName, info.message, info.action);
}

export function formatTimestamp(at: number): string {
  return new Date(at).toISOString().slice(11, 23);
}

/**
 * Why a routine's batch is not run (docs/selection.md: it would run its CREATE/ALTER, redeploying it, and measure that
 * DDL), in whole sentences: `head` says what would have run, `select` what to select instead, `viaExec` the offer of
 * Profile EXEC… for a procedure.
 */
export function routineBodyText(body: RoutineBody): { head: string; select: string; viaExec: string } {
  const r = body.routine;
  const what = `${r.kind.toLowerCase()} ${r.name}`;
  const line = r.line + 1;
  if (body.scope === 'document') {
    return {
      head: body.atCursor
        ? l10n.t('Durability Lens: nothing is selected, so the whole document would run — and the cursor is in the body of {0} (line {1}): its CREATE/ALTER would run, redeploying it, and that DDL would be measured. Nothing was run.', what, line)
        : l10n.t('Durability Lens: nothing is selected, so the whole document would run — and it defines {0} (line {1}): its CREATE/ALTER would run, redeploying it, and that DDL would be measured. Nothing was run.', what, line),
      select: l10n.t('Select the statements to run (an EXEC that calls it, or statements of its body as an ad-hoc batch); a selection runs exactly as selected.'),
      viaExec: l10n.t('Profile it through EXEC {0} instead (it is called with the parameters you enter), or select the statements to run (an EXEC that calls it, or statements of its body as an ad-hoc batch); a selection runs exactly as selected.', r.name),
    };
  }
  return {
    head: l10n.t('Durability Lens: this is the body of {0} (line {1}). Running its batch would run its CREATE/ALTER — redeploying it — and measure that DDL, not the work inside it. Nothing was run.', what, line),
    select: l10n.t('Select statements inside the body to profile them on their own, as an ad-hoc batch.'),
    viaExec: l10n.t('Profile it through EXEC {0} instead (it is called with the parameters you enter), or select statements inside the body to profile them on their own, as an ad-hoc batch.', r.name),
  };
}

/**
 * A server's error message where VS Code shows it as plain text (the Problems view, a squiggle's hover, a notification):
 * controls, a lone CR and bidi overrides written as visible escapes, so the message reads as the server sent it and
 * cannot reorder or overwrite itself; line breaks stay (a notification's links are made inert by l10n.t).
 */
function serverMessage(text: string): string {
  const shown = withVisibleControls(text.replace(/\r\n/g, '\n'));
  const cut = cutPoint(shown, MAX_SERVER_MESSAGE);
  return cut === null ? shown : l10n.t('{0}… ({1} more characters not shown)', shown.slice(0, cut), shown.length - cut);
}

/** A server's message in a diagnostic or notification is cut after this many characters (RAISERROR allows 2,047). */
export const MAX_SERVER_MESSAGE = 4_000;

/** The diagnostic on the line a workload error points at. */
export function runErrorDiagnostic(e: RunError): string {
  return l10n.t('SQL error {0}: {1}', e.number, serverMessage(e.message));
}

/** The notification after a workload failed: where, and the first error. */
export function workloadFailedText(first: RunError): string {
  return first.documentLine !== null
    ? l10n.t('Durability Lens: the workload failed at line {0} with SQL error {1}: {2}', first.documentLine + 1, first.number, serverMessage(first.message))
    : l10n.t('Durability Lens: the workload failed with SQL error {0}: {1}', first.number, serverMessage(first.message));
}
