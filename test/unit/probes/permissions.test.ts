import assert from 'node:assert/strict';
import { quoteName } from '../../../src/db/quote';
import { rebuildGrants } from '../../../src/probes/grantRebuild';
import { evaluatePreflight, grantFor, hasGranularPermissions, inComment, PREFLIGHT_SERVER_SQL, requiredPermission, serverStatePermission } from '../../../src/probes/permissions';

const ctx2019 = { majorVersion: 15, engineEdition: 3, loginName: 'app]user', userName: 'app]user', databaseName: 'Sales]DB' };
const ctx2022 = { ...ctx2019, majorVersion: 16 };

describe('probes/permissions: GRANT text', () => {
  it('quotes identifiers QUOTENAME-style, doubling ]', () => {
    assert.equal(quoteName('a]b'), '[a]]b]');
    assert.equal(quoteName('plain'), '[plain]');
    assert.equal(quoteName('x]]y'), '[x]]]]y]');
  });

  it('asks for VIEW SERVER STATE up to 2019 and VIEW SERVER PERFORMANCE STATE from 2022', () => {
    assert.equal(serverStatePermission(ctx2019), 'VIEW SERVER STATE');
    assert.equal(serverStatePermission(ctx2022), 'VIEW SERVER PERFORMANCE STATE');
    assert.equal(grantFor('waitStats', ctx2019), 'USE [master];\nGRANT VIEW SERVER STATE TO [app]]user];');
    assert.equal(grantFor('fileStats', ctx2022), 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [app]]user];');
  });

  it('grants ALTER on the database to the database user, quoting a hostile database name', () => {
    assert.equal(grantFor('durabilityToggle', ctx2019), 'USE [Sales]]DB];\nGRANT ALTER ON DATABASE::[Sales]]DB] TO [app]]user];');
  });

  it('needs nothing for host info up to 2019 and VIEW DATABASE PERFORMANCE STATE for VLFs from 2022', () => {
    assert.equal(grantFor('hostInfo', ctx2019), null);
    assert.equal(grantFor('vlfs', ctx2022), 'USE [Sales]]DB];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [app]]user];');
  });
});

describe('probes/permissions: preflight evaluation', () => {
  it('lists what is missing without VIEW SERVER STATE, with one GRANT each', () => {
    const result = evaluatePreflight(
      { login_name: 'lens', user_name: 'lens_user', view_server_state: 0, view_server_performance_state: null, alter_any_event_session: 1, alter_database: 1, view_database_state: 1 },
      { majorVersion: 15, engineEdition: 3, databaseName: 'Sales' },
    );
    const missing = new Set(result.missing.map((m) => m.measurement));
    for (const m of ['fileStats', 'waitStats', 'sessionWaits', 'perfCounters', 'logStats', 'vlfs', 'startTime'] as const) assert.ok(missing.has(m), m);
    assert.ok(!missing.has('extendedEvents'));
    assert.ok(!missing.has('durabilityToggle'));
    assert.equal(result.grantScript, 'USE [master];\nGRANT VIEW SERVER STATE TO [lens];');
  });

  it('on 2022 accepts CREATE + DROP ANY EVENT SESSION with ALTER ANY EVENT SESSION ENABLE + DISABLE instead of ALTER ANY EVENT SESSION', () => {
    const row = {
      login_name: 'lens', user_name: 'lens', view_server_performance_state: 1, alter_any_event_session: 0, create_any_event_session: 1, drop_any_event_session: 1,
      alter_any_event_session_enable: 1, alter_any_event_session_disable: 1, alter_database: 0, view_database_performance_state: 1,
    };
    const result = evaluatePreflight(row, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales' });
    assert.deepEqual(result.missing.map((m) => m.measurement), ['durabilityToggle']);
    assert.equal(result.grantScript, 'USE [Sales];\nGRANT ALTER ON DATABASE::[Sales] TO [lens];');
  });

  it('D8: CREATE + DROP ANY EVENT SESSION without the START/STOP rights (ENABLE/DISABLE) leaves the trace missing, with the GRANT', () => {
    for (const without of ['alter_any_event_session_enable', 'alter_any_event_session_disable']) {
      const row: Record<string, unknown> = {
        login_name: 'lens', user_name: 'lens', view_server_performance_state: 1, alter_any_event_session: 0, create_any_event_session: 1, drop_any_event_session: 1,
        alter_any_event_session_enable: 1, alter_any_event_session_disable: 1, alter_database: 1, view_database_performance_state: 1,
      };
      row[without] = 0;
      const result = evaluatePreflight(row, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales' });
      assert.deepEqual(result.missing.map((m) => m.measurement), ['extendedEvents'], without);
      assert.equal(result.grantScript, 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [lens];');
    }
  });

  it('D8: the preflight asks the server for the ENABLE and DISABLE permissions', () => {
    assert.match(PREFLIGHT_SERVER_SQL, /HAS_PERMS_BY_NAME\(NULL, NULL, N'ALTER ANY EVENT SESSION ENABLE'\) AS alter_any_event_session_enable/);
    assert.match(PREFLIGHT_SERVER_SQL, /HAS_PERMS_BY_NAME\(NULL, NULL, N'ALTER ANY EVENT SESSION DISABLE'\) AS alter_any_event_session_disable/);
  });

  it('treats an unknown permission name (NULL) as not held', () => {
    const result = evaluatePreflight({ login_name: 'lens', user_name: 'lens', view_server_performance_state: null }, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales' });
    const check = result.checks.find((c) => c.permission === 'VIEW SERVER PERFORMANCE STATE')!;
    assert.equal(check.held, null);
    assert.ok(result.missing.some((m) => m.measurement === 'waitStats'));
  });
});

describe('probes/permissions: Managed Instance (D4) and sys.dm_db_log_info (D7)', () => {
  // MI reports ProductMajorVersion 12 but has the 2022 permission names (permissions.ts hasGranularPermissions).
  const mi = { majorVersion: 12, engineEdition: 8, loginName: 'lens', userName: 'lens', databaseName: 'appdb' };

  it('D4: keys the permission names on the engine edition: Managed Instance at major version 12 gets the 2022 names', () => {
    assert.equal(hasGranularPermissions(mi), true);
    assert.equal(hasGranularPermissions({ majorVersion: 12, engineEdition: 3 }), false, 'a real SQL Server 2014 keeps the old names');
    assert.equal(hasGranularPermissions({ majorVersion: 12, engineEdition: 5 }), false, 'Azure SQL Database has its own names');
    assert.equal(serverStatePermission(mi), 'VIEW SERVER PERFORMANCE STATE');
    assert.equal(grantFor('waitStats', mi), 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];');
    assert.equal(grantFor('vlfs', mi), 'USE [appdb];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [lens];');
    assert.deepEqual(requiredPermission('hostInfo', mi), { permission: 'VIEW SERVER PERFORMANCE STATE', scope: 'server' });
  });

  it('D7: up to 2019 sys.dm_db_log_info asks for the server permission (the one every Learn revision accepts), never VIEW DATABASE STATE', () => {
    assert.deepEqual(requiredPermission('vlfs', ctx2019), { permission: 'VIEW SERVER STATE', scope: 'server' });
    assert.equal(grantFor('vlfs', ctx2019), 'USE [master];\nGRANT VIEW SERVER STATE TO [app]]user];');
    const result = evaluatePreflight({ login_name: 'lens', user_name: 'lens', view_server_state: 0, view_database_state: 1, alter_any_event_session: 1, alter_database: 1 }, { majorVersion: 15, engineEdition: 3, databaseName: 'Sales' });
    assert.ok(result.missing.some((m) => m.measurement === 'vlfs'), 'VIEW DATABASE STATE alone does not make the VLF count available on 2019');
  });
});

describe('probes/permissions: Azure SQL Database', () => {
  it('asks for database-scoped permissions and does not use USE', () => {
    const azure = { majorVersion: 12, engineEdition: 5, loginName: 'lens', userName: 'lens]u', databaseName: 'appdb' };
    assert.equal(grantFor('waitStats', azure), '-- run while connected to [appdb]\nGRANT VIEW DATABASE STATE TO [lens]]u];');
    assert.equal(grantFor('extendedEvents', azure), '-- run while connected to [appdb]\nGRANT ALTER ANY DATABASE EVENT SESSION TO [lens]]u];');
  });

  it('keeps a database name with line breaks inside the comment line (escaped there, exact in the GRANT)', () => {
    const databaseName = 'x\nDROP TABLE dbo.Orders --\r\u2028\u2029\u0085]y';
    const azure = { majorVersion: 12, engineEdition: 5, loginName: 'lens', userName: 'lens', databaseName };
    const grant = grantFor('durabilityToggle', azure)!;
    assert.equal(grant, `-- run while connected to [x\\u000ADROP TABLE dbo.Orders --\\u000D\\u2028\\u2029\\u0085]]y]\nGRANT ALTER ON DATABASE::${quoteName(databaseName)} TO [lens];`);
    // The first line break of any kind is the one that ends the whole comment, right before GRANT.
    const firstBreak = grant.search(/[\r\n\u000b\u000c\u0085\u2028\u2029]/);
    assert.equal(grant.slice(firstBreak + 1, firstBreak + 7), 'GRANT ');
  });

  it('inComment escapes control characters and Unicode line separators, and leaves other text alone', () => {
    assert.equal(inComment('a\tb\u000bc\u000cd\u0000e\u007f'), 'a\\u0009b\\u000Bc\\u000Cd\\u0000e\\u007F');
    assert.equal(inComment("[it's ü 🚀 \u00a0 -- /* ]]]"), "[it's ü 🚀 \u00a0 -- /* ]]]");
  });
});

describe('probes/permissions: the preflight checks what each probe really needs (issue 11)', () => {
  const allHeld2022 = { login_name: 'lens', user_name: 'lens', view_server_state: 0, view_server_performance_state: 1, alter_any_event_session: 1, alter_database: 1, view_database_state: 1, view_database_performance_state: 1, view_any_definition: 0, alter_any_database: 0 };

  it('with the monitor in the target database, VIEW ANY DEFINITION is not needed (sys.database_files is public)', () => {
    const result = evaluatePreflight(allHeld2022, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales', monitorInTargetDb: true });
    assert.deepEqual(result.missing, []);
  });

  it('with the monitor elsewhere, file IO needs VIEW ANY DEFINITION (sys.master_files) and says so with the GRANT', () => {
    const result = evaluatePreflight(allHeld2022, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales', monitorInTargetDb: false });
    assert.deepEqual(result.missing.map((m) => m.measurement).sort(), ['fileStats', 'volumes']);
    assert.equal(result.missing[0]!.grant, 'USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];');
    const viaAlter = evaluatePreflight({ ...allHeld2022, alter_any_database: 1 }, { majorVersion: 16, engineEdition: 3, databaseName: 'Sales', monitorInTargetDb: false });
    assert.deepEqual(viaAlter.missing, [], 'ALTER ANY DATABASE also shows the rows');
  });

  it('Azure SQL Database on S0 (or an unknown objective) never says "all held": ##MS_ServerStateReader## is listed', () => {
    const azureRow = { login_name: 'lens', user_name: 'lens', alter_database: 1, view_database_state: 1, alter_any_database_event_session: 1 };
    const ctx = { majorVersion: 12, engineEdition: 5, databaseName: 'Sales' };
    for (const serviceObjective of ['S0', 'Basic', 'ElasticPool', null]) {
      const result = evaluatePreflight(azureRow, ctx, { serviceObjective });
      assert.deepEqual(result.missing.map((m) => m.measurement).sort(), ['logSpace', 'perfCounters', 'startTime', 'waitStats'], String(serviceObjective));
      assert.equal(result.missing[0]!.grant, '-- run while connected to the master database of the logical server\nALTER SERVER ROLE [##MS_ServerStateReader##] ADD MEMBER [lens];');
    }
    assert.deepEqual(evaluatePreflight(azureRow, ctx, { serviceObjective: 'P1' }).missing, [], 'VIEW DATABASE STATE suffices above S1');
  });
});

describe('probes/grantRebuild: structured requirements of empty sources (issue 11)', () => {
  const facts = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };

  it('rebuilds VIEW ANY DEFINITION and the Azure role from {measurement, required}; a claimed permission outside the allow-list falls back', () => {
    assert.deepEqual(rebuildGrants({ ...facts, measurements: [{ measurement: 'fileStats', required: { permission: 'VIEW ANY DEFINITION', scope: 'server' } }] }), ['USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];']);
    assert.deepEqual(rebuildGrants({ ...facts, engineEdition: 5, measurements: [{ measurement: 'perfCounters', required: { permission: '##MS_ServerStateReader##', scope: 'server-role' } }] }), [
      '-- run while connected to the master database of the logical server\nALTER SERVER ROLE [##MS_ServerStateReader##] ADD MEMBER [lens];',
    ]);
    assert.deepEqual(rebuildGrants({ ...facts, measurements: [{ measurement: 'fileStats', required: { permission: 'CONTROL SERVER; DROP LOGIN x', scope: 'server' } }] }), ['USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];']);
  });
});
