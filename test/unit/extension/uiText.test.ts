import * as assert from 'node:assert/strict';
import { evaluatePreflight } from '../../../src/probes/permissions';
import { alterDurabilitySql, DATA_LOSS_CAVEAT } from '../../../src/profile/durabilityGuard';
import { describePlan, runOrder, type ComparisonPlan } from '../../../src/profile/plan';
import { comparisonConfirmation, connectionFailureText, preflightSummary, refusalText, restorePrompt, runErrorDiagnostic, workloadFailedText, MAX_SERVER_MESSAGE } from '../../../src/extension/uiText';
import { NOTIFICATION_LINK } from '../../../src/shared/notificationText';
import { progressText, STEP_TEXT } from '../../../src/extension/profiling/profiling';

function plan(over: Partial<ComparisonPlan> = {}): ComparisonPlan {
  const modes = over.modes ?? (['DISABLED', 'FORCED'] as const).slice();
  return {
    server: 'sql1,1433',
    serverVersion: 'Microsoft SQL Server 2022',
    source: 'sql-server',
    database: 'lab]x',
    databaseId: 7,
    currentSetting: 'ALLOWED',
    modes,
    repetitions: 3,
    warmup: true,
    order: runOrder(modes, 3, true),
    statements: [...modes.map((m) => alterDurabilitySql('lab]x', m)), alterDurabilitySql('lab]x', 'ALLOWED')],
    restoreStatement: alterDurabilitySql('lab]x', 'ALLOWED'),
    dataLossCaveat: DATA_LOSS_CAVEAT,
    refusals: [],
    warnings: [],
    canProceed: true,
    grant: null,
    ...over,
  };
}

describe('extension/uiText', () => {
  it('the confirmation names server, database, current setting, modes, statements and the data-loss caveat', () => {
    const t = comparisonConfirmation(plan(), 'Lab box');
    assert.equal(t.message, 'Switch DELAYED_DURABILITY of lab]x on sql1,1433 between DISABLED and FORCED to compare?');
    assert.match(t.detail, /^Server: sql1,1433 \(connection "Lab box"\)$/m);
    assert.match(t.detail, /^Database: lab\]x, DELAYED_DURABILITY is ALLOWED now\.$/m);
    assert.match(t.detail, /^Runs: DISABLED, FORCED × 3 \+ 1 warm-up, alternating order\.$/m);
    assert.ok(t.detail.includes('  ALTER DATABASE [lab]]x] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;'));
    assert.ok(t.detail.includes('set back to ALLOWED'));
    assert.ok(t.detail.includes(`Data-loss caveat: ${DATA_LOSS_CAVEAT}`));
  });

  it('says where each run creates its event session (ON SERVER, ON DATABASE on Azure SQL Database), and nothing when untraced', () => {
    const event = (detail: string) => detail.split('\n').filter((l) => l.includes('Extended Events'));
    assert.deepEqual(event(comparisonConfirmation(plan({ eventSession: 'server' }), 'p').detail), ['Each run also creates an Extended Events session ON SERVER (durability_lens_…, log flushes only), and drops it after the run; durabilityLens.xe.enabled turns the trace off.']);
    assert.deepEqual(event(comparisonConfirmation(plan({ eventSession: 'database' }), 'p').detail), ['Each run also creates an Extended Events session ON DATABASE (durability_lens_…, log flushes only), and drops it after the run; durabilityLens.xe.enabled turns the trace off.']);
    assert.deepEqual(event(comparisonConfirmation(plan(), 'p').detail), []);
    assert.match(describePlan(plan({ eventSession: 'database' })), /^Trace: {4}each run creates an Extended Events session ON DATABASE /m);
    assert.doesNotMatch(describePlan(plan({ eventSession: 'database', canProceed: false, refusals: [{ code: 'in-use', message: 'taken' }] })), /Extended Events/, 'a refused plan creates nothing');
  });

  it('labels the stand-in and lists warnings; refusals stop with the GRANT', () => {
    const t = comparisonConfirmation(plan({ source: 'stand-in', warnings: [{ code: 'change-tracking', message: 'CT is on.' }] }), 'p');
    assert.match(t.detail, /stand-in, not a real SQL Server/);
    assert.match(t.detail, /^Warning: CT is on\.$/m);
    assert.equal(refusalText(plan()), null);
    const refused = refusalText(plan({ canProceed: false, refusals: [{ code: 'no-alter-permission', message: 'No ALTER.' }], grant: 'GRANT ALTER ON DATABASE::[lab]]x] TO [u];' }))!;
    assert.equal(refused, 'The comparison was not started and nothing was changed: No ALTER. GRANT needed: GRANT ALTER ON DATABASE::[lab]]x] TO [u];');
  });

  it('a 1 MB server message is cut in the Problems view and the notification, with how much was left out', () => {
    const message = `${'x'.repeat(MAX_SERVER_MESSAGE - 1)}\u{1F600}${'y'.repeat(1_000_000)}`;
    const error = { number: 50000, message, documentLine: null, batchIndex: 0 };
    const shown = runErrorDiagnostic(error);
    assert.equal(shown, `SQL error 50000: ${'x'.repeat(MAX_SERVER_MESSAGE - 1)}… (${message.length - MAX_SERVER_MESSAGE + 1} more characters not shown)`);
    assert.ok(workloadFailedText(error).length < MAX_SERVER_MESSAGE + 200);
  });

  it('a server\'s error message shows as sent in the Problems view and the notification: no control, bidi override or link acts', () => {
    const message = "Invalid object name 'dbo.t\u202Egnp.exe'.\r\nSee [the fix](command:workbench.action.terminal.sendSequence?%7B%7D)\rDone\u001b[2J";
    const error = { number: 208, message, documentLine: 4, batchIndex: 0 };
    assert.equal(runErrorDiagnostic(error), "SQL error 208: Invalid object name 'dbo.t\\u202egnp.exe'.\nSee [the fix] (command:workbench.action.terminal.sendSequence?%7B%7D)\\x0dDone\\x1b[2J");
    const shown = workloadFailedText(error);
    assert.match(shown, /^Durability Lens: the workload failed at line 5 with SQL error 208: Invalid object name 'dbo\.t\\u202egnp\.exe'\./);
    assert.equal(shown.match(NOTIFICATION_LINK), null, shown);
    assert.doesNotMatch(shown, /[\u0000-\u0009\u000b-\u001f\u202e]/);
    assert.match(workloadFailedText({ ...error, documentLine: null }), /^Durability Lens: the workload failed with SQL error 208: Invalid object name 'dbo\.t\\u202egnp\.exe'\./);
  });

  it('the restore prompt lists each pending entry with its statement', () => {
    const entry = { id: '1', server: 'sql1,1433', database: 'lab', originalSetting: 'DISABLED' as const, lastApplied: 'FORCED' as const, createdAt: '2026-01-01T00:00:00.000Z', restoreStatement: 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;' };
    const one = restorePrompt([entry]);
    assert.equal(one.message, 'A durability comparison did not finish restoring lab on sql1,1433. Restore DELAYED_DURABILITY to DISABLED now?');
    assert.ok(one.detail.includes('(last set to FORCED)'));
    assert.ok(one.detail.includes(entry.restoreStatement));
    assert.match(restorePrompt([entry, { ...entry, id: '2' }]).message, /^2 databases may still have/);
  });

  it('the preflight summary says which measurements are missing and carries the GRANT script', () => {
    const ctx = { majorVersion: 16, engineEdition: 3, databaseName: 'lab' };
    const none = evaluatePreflight({ login_name: 'lens', user_name: 'lens', view_server_performance_state: 0, view_server_state: 0, alter_any_event_session: 0, alter_database: 1, view_database_state: 0, view_database_performance_state: 0 }, ctx);
    const s = preflightSummary(none);
    assert.ok(none.missing.length > 0);
    assert.match(s.message!, /^Connected, but \d+ measurements? will be missing \(/);
    assert.equal(s.grantScript, none.grantScript);
    assert.ok(s.log.includes(none.grantScript));
    for (const m of none.missing) assert.ok(s.log.includes(`  - ${m.label}`));
  });

  it('connection failures keep the db layer text (what happened, nothing changed, what to do)', () => {
    const text = connectionFailureText({ kind: 'login-failed', message: 'The server refused the login (error 18456). Nothing was changed on the server.', action: 'Check the user name.', nothingChanged: true, offerTrustServerCertificate: false, driverMessage: 'x' }, 'lab');
    assert.equal(text, 'Durability Lens could not connect with "lab": The server refused the login (error 18456). Nothing was changed on the server. Check the user name.');
  });

  it('has progress text for every profile step', () => {
    assert.equal(progressText('set-durability', 'FORCED (run 2 of 7: FORCED)'), 'Switching DELAYED_DURABILITY: FORCED (run 2 of 7: FORCED)');
    assert.equal(progressText('workload'), 'Running the workload');
    for (const text of Object.values(STEP_TEXT)) assert.ok(text.length > 0);
  });
});
