// ALTER DATABASE ... SET DELAYED_DURABILITY through the model: the setting, permission and lock failures.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

const durability = async (s: ReturnType<typeof createStandin>, h: Awaited<ReturnType<typeof connect>>) =>
  (await rows(s, h, "SELECT delayed_durability, delayed_durability_desc FROM sys.databases WHERE name = N'lab'"))[0];

describe('stand-in model: ALTER DATABASE', () => {
  it('changes sys.databases for a named database and for CURRENT', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    assert.deepEqual(await durability(s, h), { delayed_durability: 0, delayed_durability_desc: 'DISABLED' });
    let r = await exec(s, h, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(await durability(s, h), { delayed_durability: 2, delayed_durability_desc: 'FORCED' });
    r = await exec(s, h, 'ALTER DATABASE CURRENT SET DELAYED_DURABILITY = ALLOWED');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(await durability(s, h), { delayed_durability: 1, delayed_durability_desc: 'ALLOWED' });
  });

  it('fails with 5061 then 5069 under NO_WAIT when the database lock is taken, and changes nothing', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.faults.alterDatabaseLocked = true;
    const h = await connect(s);
    const r = await exec(s, h, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
    assert.deepEqual(r.errors.map((e) => [e.number, e.message]), [
      [5061, "ALTER DATABASE failed because a lock could not be placed on database 'lab'. Try again later."],
      [5069, 'ALTER DATABASE statement failed.'],
    ]);
    assert.equal((await durability(s, h))!.delayed_durability, 0);
  });

  it('waits for the lock without NO_WAIT: 1222 after SET LOCK_TIMEOUT, success once the lock is released', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.faults.alterDatabaseLocked = true;
    const h = await connect(s);
    const r = await exec(s, h, 'SET LOCK_TIMEOUT 20;\nALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED;');
    assert.deepEqual(r.errors.map((e) => [e.number, e.lineNumber]), [[1222, 2], [5069, 2]]);
    const pending = exec(s, h, 'SET LOCK_TIMEOUT -1; ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED;');
    const monitor = await connect(s);
    // Poll (with a deadline) until the blocked ALTER is visible as a lock wait, then release the lock.
    const deadline = Date.now() + 5000;
    let waiting: unknown[] = [];
    while (Date.now() < deadline) {
      waiting = await rows(s, monitor, `SELECT session_id, wait_type FROM sys.dm_os_waiting_tasks WHERE session_id = ${h.spid}`);
      if (waiting.length) break;
      await new Promise((res) => setImmediate(res));
    }
    assert.deepEqual(waiting, [{ session_id: h.spid, wait_type: 'LCK_M_X' }]);
    s.faults.alterDatabaseLocked = false;
    assert.deepEqual((await pending).errors, []);
    assert.equal((await durability(s, monitor))!.delayed_durability, 2);
  });

  it('refuses a login without ALTER on the database with 5011, and allows it once granted', async () => {
    const s = createStandin({ speedFactor: 0, logins: [{ name: 'dev', password: 'd' }, { name: 'owner', password: 'o', databasePermissions: { lab: ['ALTER'] } }] });
    const dev = await connect(s, { user: 'dev', password: 'd' });
    const r = await exec(s, dev, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT');
    assert.deepEqual(r.errors.map((e) => [e.number, e.class]), [[5011, 14], [5069, 16]]);
    assert.match(r.errors[0]!.message, /^User does not have permission to alter database 'lab'/);
    const owner = await connect(s, { user: 'owner', password: 'o' });
    assert.deepEqual((await exec(s, owner, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = ALLOWED WITH NO_WAIT')).errors, []);
  });

  it('refuses the option on system databases (modelling choice 5058, see MODEL.md)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, 'ALTER DATABASE [tempdb] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT');
    assert.deepEqual(r.errors.map((e) => e.number), [5058, 5069]);
  });

  it('applies the denied fault as a permission failure', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.faults.alterDatabaseDenied = true;
    const h = await connect(s);
    const r = await exec(s, h, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT');
    assert.equal(r.errors[0]!.number, 5011);
  });
});
