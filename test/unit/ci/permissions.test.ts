// Issue 27 item 4: the README's least-privileged login and what .github/workflows/real-server.yml creates are the same
// statements for every SQL Server version the workflow runs, and the README says what each GRANT enables.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { README_FILE, readmePermissions, renderReadme, renderWorkflow, statements, workflowLogin } from './permissionsSql';

describe('ci: the README\'s permissions and the real-server workflow agree', () => {
  const readme = readmePermissions();
  const login = workflowLogin();

  it('the workflow runs SQL Server 2019, 2022 and 2025, each with every version-dependent name set', () => {
    assert.deepEqual(login.matrix.map((m) => m.version), ['2019', '2022', '2025']);
    for (const m of login.matrix) assert.deepEqual(Object.keys(m.vars).sort(), ['DATABASE_STATE', 'EVENT_SESSIONS', 'SERVER_STATE'], m.version);
  });

  for (const version of ['2019', '2022', '2025']) {
    it(`SQL Server ${version}: the workflow creates exactly the README's two blocks (with ${version}'s names)`, () => {
      assert.deepEqual(statements(renderWorkflow(login, version)), statements(renderReadme(readme, version)));
    });
  }

  it('the comparison catches drift: one more GRANT, one GRANT less, or another name fails it', () => {
    const ok = statements(renderReadme(readme, '2022'));
    const more = { ...login, script: `${login.script}\nGRANT VIEW ANY DEFINITION TO [lens_monitor];` };
    assert.notDeepEqual(statements(renderWorkflow(more, '2022')), ok);
    const less = { ...login, script: login.script.replace(/^GRANT ALTER ON DATABASE::\[lab\] TO \[lens_monitor\];$/m, '') };
    assert.notDeepEqual(statements(renderWorkflow(less, '2022')), ok);
    assert.notDeepEqual(statements(renderWorkflow(login, '2019')), ok, '2019 uses other names than 2022');
  });

  it('the monitoring block only reads: no data, object or database change is granted there', () => {
    for (const s of statements(readme.monitoring).filter((x) => x.startsWith('GRANT'))) {
      assert.doesNotMatch(s, /\b(CREATE TABLE|CREATE PROCEDURE|INSERT|UPDATE|DELETE|EXECUTE|ON DATABASE::|ON SCHEMA::)\b/, s);
    }
    assert.ok(statements(readme.workload).some((s) => s === 'GRANT ALTER ON DATABASE::[lab] TO [lens_monitor]'), 'the durability switch is a workload GRANT');
    assert.doesNotMatch(readme.monitoring + readme.workload, /sysadmin|db_owner|CONTROL|VIEW ANY DEFINITION/);
  });

  it('the 2016–2019 names are the Learn ones for each 2022 name', () => {
    assert.deepEqual([...readme.before2022], [
      ['VIEW SERVER PERFORMANCE STATE', 'VIEW SERVER STATE'],
      ['VIEW DATABASE PERFORMANCE STATE', 'VIEW DATABASE STATE'],
      ['CREATE ANY EVENT SESSION, ALTER ANY EVENT SESSION ENABLE, ALTER ANY EVENT SESSION DISABLE, DROP ANY EVENT SESSION', 'ALTER ANY EVENT SESSION'],
    ]);
  });

  it('the README says what each GRANT enables', () => {
    const text = readFileSync(README_FILE, 'utf8');
    const section = text.slice(text.indexOf('### Permissions'), text.indexOf('## CLI'));
    for (const grant of ['`VIEW SERVER PERFORMANCE STATE`', 'the four event-session GRANTs', '`VIEW DATABASE PERFORMANCE STATE`', '`CREATE TABLE`', '`CREATE PROCEDURE`', '`ALTER` on the database']) {
      assert.match(section, new RegExp(`^\\| ${grant.replace(/[`()]/g, '\\$&')}[^|]*\\| [^|]+\\| [^|]+\\|$`, 'm'), grant);
    }
  });
});
