// The after-snapshot's request (counters, the traces' target reads and STOPs, their statuses: measureRun.ts
// takeAfterSnapshot) fails as a whole on a monitor that stays connected — before the server ran it (a request it
// refused as a whole) or after (a request timeout whose answer was lost). Each query is then asked on its own
// (db/batch.ts), and the sessions' states the run holds may be stale. Every session must still be dropped ("Nothing lost").
import { strict as assert } from 'node:assert';
import type { SqlSession } from '../../../src/db/types';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

describe('integration: the after-snapshot request fails as a whole on a live monitor (stand-in only)', function () {
  this.timeout(60000);
  const t = useTestServer({ standinOnly: 'replaces one answer of the monitor connection with a request timeout' });

  for (const ran of [false, true]) {
    it(`still drops every event session of the run when the server ${ran ? 'ran the request' : 'never ran it'}`, async () => {
      const table = t.table(`after_${ran ? 'ran' : 'refused'}`);
      const source = profileConnectionSource(t.profile, t.secret);
      const workload = await source.open('workload');
      const monitor = await source.open('monitor');
      try {
        await workload.execute(`CREATE TABLE ${table} (id int);`);
        let failed = false;
        const query = monitor.query.bind(monitor);
        (monitor as { query: SqlSession['query'] }).query = async (sql, parameters) => {
          // The after-snapshot with the traces' STOPs: its answer is replaced by a failure of the whole request.
          const after = !failed && /STATE\s*=\s*STOP/i.test(sql) && /dm_io_virtual_file_stats/i.test(sql);
          if (after && !ran) {
            failed = true;
            throw Object.assign(new Error('The composed request was refused as a whole'), { code: 'EREQUEST' });
          }
          const rows = await query(sql, parameters);
          if (after) {
            failed = true;
            throw Object.assign(new Error('Timeout: Request failed to complete in 60000ms'), { code: 'ETIMEOUT' });
          }
          return rows;
        };
        const run = await profileRun({ connections: { workload, monitor }, batches: analyze(`INSERT INTO ${table} VALUES (1);`).batches });
        assert.ok(failed, 'the after-snapshot request was sent (and failed)');
        assert.deepEqual(run.notes.filter((n) => /could not be dropped/.test(n)), []);
        assert.deepEqual((await t.state()).eventSessions, [], 'no event session of the run is left on the server');
      } finally {
        await workload.close();
        await monitor.close();
      }
    });
  }
});
