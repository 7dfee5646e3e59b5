// Issue 33 D4 end to end: the stand-in playing Managed Instance reports ProductMajorVersion 12 (as MI does) while its
// permission rules are SQL Server 2022's. `doctor` must key the permission names on EngineEdition 8: a login holding
// VIEW SERVER PERFORMANCE STATE reads everything, and a login holding nothing is told to GRANT that permission — not
// the pre-2022 VIEW SERVER STATE the version number would suggest.
import { strict as assert } from 'node:assert';
import { runCli } from '../../src/cli/dispatch';
import { EXIT } from '../../src/cli/commands/shared';
import { processIO } from '../../src/cli/io';
import type { ReadinessReport } from '../../src/profile/readiness';
import { useStandin } from '../support/standin';
import { standinOnlySuite } from './support';

const MONITOR = { name: 'mi_monitor', password: 'Monitor-1', databases: ['lab'], serverPermissions: ['VIEW SERVER PERFORMANCE STATE'] };
const READER = { name: 'mi_reader', password: 'Reader-1', databases: ['lab'] };

describe('integration: Managed Instance permission names (D4, stand-in)', function () {
  this.timeout(60000);
  standinOnlySuite('the stand-in plays MI with logins the suite controls');
  const mi = useStandin({ speedFactor: 1, product: 'mi', logins: [MONITOR, READER] });
  let out: string[];
  let err: string[];

  async function doctor(user: { name: string; password: string }): Promise<ReadinessReport> {
    out = [];
    err = [];
    const io = { ...processIO(), env: { LENS_PW: user.password }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const code = await runCli(['doctor', '--server', '127.0.0.1', '--port', String(mi.profile.port), '--database', 'lab', '--user', user.name, '--password-env', 'LENS_PW', '--encrypt', 'false', '--json'], io);
    assert.equal(code, EXIT.ok, err.join(''));
    return JSON.parse(out.join('')) as ReadinessReport;
  }
  const probe = (r: ReadinessReport, id: string) => r.probes.find((p) => p.id === id)!;

  it('reports major version 12 and EngineEdition 8; VIEW SERVER PERFORMANCE STATE is enough for every DMV probe', async () => {
    const r = await doctor(MONITOR);
    assert.deepEqual([r.server.majorVersion, r.server.engineEdition], [12, 8]);
    for (const id of ['fileStats', 'waitStats', 'sessionWaits', 'perfCounters', 'logStats', 'logSpace']) assert.equal(probe(r, id).status, 'ok', `${id}: ${probe(r, id).reason}`);
  });

  it('a login without server state is told to GRANT VIEW SERVER PERFORMANCE STATE (the 2022 name), never VIEW SERVER STATE', async () => {
    const r = await doctor(READER);
    const grant = 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [mi_reader];';
    for (const id of ['fileStats', 'waitStats', 'perfCounters']) assert.equal(probe(r, id).grant, grant, id);
    assert.equal(probe(r, 'sessionWaits').status, 'empty');
    assert.equal(probe(r, 'sessionWaits').grant, grant);
    assert.ok(!r.grantScript.includes('GRANT VIEW SERVER STATE '), r.grantScript);
  });
});

describe('integration: sys.dm_db_log_info on SQL Server 2019 (D7, stand-in)', function () {
  this.timeout(60000);
  const DB_STATE_ONLY = { name: 'vlf_reader', password: 'Reader-1', databases: ['lab'], databasePermissions: { lab: ['VIEW DATABASE STATE'] } };
  standinOnlySuite('plays SQL Server 2019 with a login the suite controls');
  const t = useStandin({ speedFactor: 1, version: 2019, logins: [DB_STATE_ONLY] });

  it('VIEW DATABASE STATE alone does not read the VLF count; the GRANT names the server permission every Learn revision accepts', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { ...processIO(), env: { LENS_PW: DB_STATE_ONLY.password }, stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) };
    const code = await runCli(['doctor', '--server', '127.0.0.1', '--port', String(t.profile.port), '--database', 'lab', '--user', DB_STATE_ONLY.name, '--password-env', 'LENS_PW', '--encrypt', 'false', '--json'], io);
    assert.equal(code, EXIT.ok, err.join(''));
    const vlfs = (JSON.parse(out.join('')) as ReadinessReport).probes.find((p) => p.id === 'vlfs')!;
    assert.equal(vlfs.status, 'denied', vlfs.reason ?? '');
    assert.equal(vlfs.grant, 'USE [master];\nGRANT VIEW SERVER STATE TO [vlf_reader];');
  });
});
