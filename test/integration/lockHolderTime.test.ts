// "connected since" in a refusal names when the lock holder's session logged in. sys.dm_exec_sessions.login_time is a
// datetime in the server machine's local time (as GETDATE is: Learn, getdate-transact-sql), and tedious reads a datetime
// as UTC; on a server five hours and forty-five minutes east of UTC the refusal named a time 5 h 45 min in the future.
// The lock-holder query now converts it on the server with the server's own offset.
import { strict as assert } from 'node:assert';
import { lockResourceOf, readLockHolder, tryLockDatabase, releaseDatabaseLock } from '../../src/profile/databaseLock';
import { useTestServer } from './support';

describe('integration: the lock holder\'s login time is an instant, whatever zone the server is in', function () {
  this.timeout(60000);
  const h = useTestServer();

  for (const offsetMinutes of [345, -210, 0]) {
    const zone = `UTC${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0')}:${String(Math.abs(offsetMinutes) % 60).padStart(2, '0')}`;
    it(`names the holder's login within a minute of now with the server at ${zone}`, async function () {
      if (h.standin) h.standin.state.utcOffsetMinutes = offsetMinutes;
      else if (offsetMinutes !== 0) this.skip(); // a given server has its own zone: the 0 case checks it as it is
      const holder = await h.connect('monitor');
      const other = await h.connect('monitor');
      try {
        assert.equal((await tryLockDatabase(holder, h.database)).acquired, true);
        const seen = await readLockHolder(other, lockResourceOf(h.database));
        assert.ok(seen.since, JSON.stringify(seen));
        const off = Math.abs(Date.parse(seen.since!) - Date.now());
        assert.ok(off < 60_000, `login time ${seen.since} is ${Math.round(off / 60_000)} min from now`);
      } finally {
        await releaseDatabaseLock(holder, h.database).catch(() => undefined);
        await holder.close();
        await other.close();
        if (h.standin) h.standin.state.utcOffsetMinutes = 0;
      }
    });
  }
});
