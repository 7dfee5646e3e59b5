import { strict as assert } from 'node:assert';
import { ok, notApplicable } from '../../../src/probes/measurement';
import type { DatabaseInfo } from '../../../src/probes/databaseInfo';
import type { PreflightResult } from '../../../src/probes/permissions';
import { describePlan, evaluatePlanIssues, raises22892, runOrder, splitSetup, type ComparisonPlan } from '../../../src/profile/plan';

function db(overrides: Partial<DatabaseInfo> = {}): DatabaseInfo {
  return {
    databaseId: 5, name: 'lab', state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: 'DISABLED', cdcEnabled: false, published: false,
    logReuseWait: 'NOTHING', inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: notApplicable('availabilityGroup', 'not in an AG'), ...overrides,
  };
}
const codes = (x: { code: string }[]) => x.map((i) => i.code);

describe('comparison plan', () => {
  it('alternates the order per repetition (A B, B A, A B) after one uncounted warm-up', () => {
    const order = runOrder(['DISABLED', 'FORCED'], 3, true);
    assert.deepEqual(order.map((r) => `${r.mode}${r.warmup ? '*' : ''}`), ['DISABLED*', 'DISABLED', 'FORCED', 'FORCED', 'DISABLED', 'DISABLED', 'FORCED']);
    assert.deepEqual(order.filter((r) => !r.warmup).map((r) => r.repetition), [0, 0, 1, 1, 2, 2]);
    assert.deepEqual(runOrder(['DISABLED', 'ALLOWED', 'FORCED'], 2, false).map((r) => r.mode), ['DISABLED', 'ALLOWED', 'FORCED', 'FORCED', 'ALLOWED', 'DISABLED']);
    assert.throws(() => runOrder(['FORCED'], 0, false), RangeError);
  });

  it('splits setup at the setup-end marker comment (inclusive), or by an explicit count', () => {
    const b = (text: string) => ({ text, repeat: 1, firstLine: 0 });
    const batches = [b('SET NOCOUNT ON;'), b('CREATE TABLE t (i int);\n-- durability-lens: setup-end'), b('INSERT t VALUES (1);')];
    assert.deepEqual(splitSetup(batches).setup.map((x) => x.text), [batches[0]!.text, batches[1]!.text]);
    assert.deepEqual(splitSetup(batches).measured.map((x) => x.text), ['INSERT t VALUES (1);']);
    assert.equal(splitSetup([batches[0]!, batches[2]!]).setup.length, 0, 'no marker: nothing is setup');
    assert.equal(splitSetup(batches, 1).measured.length, 2);
    assert.throws(() => splitSetup(batches, 4), RangeError);
  });

  it('a refused plan lists no statements and promises no restore (its "current" setting may be another comparison\'s FORCED)', () => {
    const base = {
      server: 'srv', source: 'stand-in', database: 'lab', databaseId: 5, currentSetting: 'FORCED', modes: ['DISABLED', 'FORCED'], repetitions: 1, warmup: false,
      order: runOrder(['DISABLED', 'FORCED'], 1, false), statements: ['ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;'],
      restoreStatement: 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;', dataLossCaveat: 'caveat', refusals: [], warnings: [], canProceed: true, grant: null,
    } as unknown as ComparisonPlan;
    assert.match(describePlan(base), /Statements that will run \(from the monitor connection\):\n {2}ALTER DATABASE \[lab\][^\n]*\nAfterwards the database is set back to FORCED and verified\./);
    const refused = describePlan({ ...base, canProceed: false, refusals: [{ code: 'in-use', message: 'A comparison owns [lab] since 2026-11-28T04:30:49.701Z: …; the original setting is DISABLED; it last set FORCED' }] });
    assert.doesNotMatch(refused, /ALTER DATABASE|set back to|Statements that will run/);
    assert.match(refused, /\nStatements: none is sent — the comparison is refused \(see "Refused" below\)\.\n[\s\S]*\nRefused: {2}A comparison owns \[lab\] since .*the original setting is DISABLED; it last set FORCED$/);
  });

  it('refuses system databases', () => {
    for (const name of ['master', 'tempdb', 'model', 'MSDB']) {
      assert.deepEqual(codes(evaluatePlanIssues(db({ name }), null, { server: 's' }).refusals), ['system-database'], name);
    }
  });

  it('refuses CDC and transactional replication, warns for change tracking on builds before 22892 (2017, 2019 CU19)', () => {
    assert.deepEqual(codes(evaluatePlanIssues(db({ cdcEnabled: true }), null, { server: 's' }).refusals), ['cdc']);
    assert.deepEqual(codes(evaluatePlanIssues(db({ published: true }), null, { server: 's' }).refusals), ['replication']);
    for (const serverVersion of ['14.0.3456.2', '15.0.4298.1', '16.0.4003.1']) {
      const ct = evaluatePlanIssues(db({ changeTracking: ok(true) }), null, { server: 's', serverVersion, platform: 'sql-server' });
      assert.deepEqual([codes(ct.refusals), codes(ct.warnings)], [[], ['change-tracking']], serverVersion);
    }
  });

  it('refuses change tracking up front where enabling delayed durability raises 22892 (2019 CU20+, 2022 CU2+, 2025, Azure)', () => {
    for (const [serverVersion, platform] of [['15.0.4312.2', 'sql-server'], ['16.0.4015.1', 'sql-server'], ['17.0.1000.7', 'sql-server'], ['12.0.2000.8', 'azure-sql-database'], ['16.0.4165.4', 'azure-sql-managed-instance']] as const) {
      const ct = evaluatePlanIssues(db({ changeTracking: ok(true) }), null, { server: 's', serverVersion, platform });
      assert.deepEqual(codes(ct.refusals), ['change-tracking'], serverVersion);
      assert.match(ct.refusals[0]!.message, /error 22892/);
    }
    assert.equal(raises22892('15.0.4298.1', 'sql-server'), false, '2019 CU19');
    assert.equal(raises22892('15.0.4312.2', 'sql-server'), true, '2019 CU20');
    assert.equal(raises22892('16.0.1050.5', 'sql-server'), false, '2022 RTM GDR');
    assert.equal(raises22892(undefined, undefined), true, 'an unknown build is treated as raising');
    assert.equal(raises22892('16.0.4000.1', 'sql-server', 'CU20'), true, "SERVERPROPERTY('ProductUpdateLevel') CU20 on 2022");
    assert.equal(raises22892('15.0.4000.1', 'sql-server', 'CU19'), false, '2019 CU19');
    assert.equal(raises22892('15.0.4000.1', 'sql-server', 'CU20'), true, '2019 CU20');
    const cdc = evaluatePlanIssues(db({ cdcEnabled: true }), null, { server: 's', serverVersion: '16.0.4015.1', platform: 'sql-server' });
    assert.match(cdc.refusals[0]!.message, /22892/);
    const merge = evaluatePlanIssues(db({ mergePublished: true }), null, { server: 's', serverVersion: '16.0.4015.1', platform: 'sql-server' });
    assert.deepEqual([codes(merge.refusals), codes(merge.warnings)], [[], ['merge-replication']]);
  });

  it('refuses an availability-group member unless the caveat is accepted, then warns', () => {
    assert.deepEqual(codes(evaluatePlanIssues(db({ inAvailabilityGroup: true }), null, { server: 's' }).refusals), ['availability-group']);
    const accepted = evaluatePlanIssues(db({ inAvailabilityGroup: true }), null, { server: 's', allowAvailabilityGroup: true });
    assert.deepEqual([codes(accepted.refusals), codes(accepted.warnings)], [[], ['availability-group']]);
  });

  it('refuses without ALTER permission and hands over the GRANT', () => {
    const grant = 'USE [lab];\nGRANT ALTER ON DATABASE::[lab] TO [app];';
    const preflight = { missing: [{ measurement: 'durabilityToggle', label: 'x', grant }] } as unknown as PreflightResult;
    const issues = evaluatePlanIssues(db(), preflight, { server: 's' });
    assert.deepEqual(codes(issues.refusals), ['no-alter-permission']);
    assert.equal(issues.grant, grant);
  });

  it('warns that ALLOWED equals DISABLED for a workload without delayed COMMITs', () => {
    const issues = evaluatePlanIssues(db(), null, { server: 's', modes: ['DISABLED', 'ALLOWED'], workloadHasDelayedCommits: false });
    assert.deepEqual(codes(issues.warnings), ['allowed-without-delayed-commits']);
  });
});
