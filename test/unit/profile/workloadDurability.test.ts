// The profile's check that its script left DELAYED_DURABILITY as it found it (profile/workloadDurability.ts): the
// after-snapshot's reading is used when there is one; otherwise the setting is read again, and a reading that fails
// is said as unknown with the statement to check and restore it — never as "not changed".
import { strict as assert } from 'node:assert';
import type { SqlClient } from '../../../src/db/types';
import { checkDurabilityAfterRun, workloadDurabilityChangeOf } from '../../../src/profile/workloadDurability';

function client(answer: () => Record<string, unknown>[]): SqlClient & { asked: number } {
  const c = {
    asked: 0,
    async query() {
      c.asked++;
      return answer();
    },
  };
  return c as unknown as SqlClient & { asked: number };
}

describe('profile: did the script change DELAYED_DURABILITY?', () => {
  it('same setting, or no first reading: nothing to say', () => {
    assert.equal(workloadDurabilityChangeOf('lab', 'DISABLED', 'DISABLED'), null);
    assert.equal(workloadDurabilityChangeOf('lab', null, 'FORCED'), null);
  });

  it('a change names both settings, the data-loss risk when not DISABLED, and the quoted restoring statement', () => {
    const c = workloadDurabilityChangeOf('la]b', 'DISABLED', 'FORCED')!;
    assert.equal(c.restoreStatement, 'ALTER DATABASE [la]]b] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;');
    assert.match(c.message, /from DISABLED to FORCED .* it is FORCED now\. Durability Lens did not change it and has not changed it back\. While a database is FORCED/);
    const back = workloadDurabilityChangeOf('lab', 'FORCED', 'DISABLED')!;
    assert.doesNotMatch(back.message, /can be lost/);
    assert.match(back.message, /To put it back: ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;$/);
  });

  it('uses the after-snapshot reading without asking the server again', async () => {
    const monitor = client(() => [{ delayed_durability_desc: 'DISABLED' }]);
    const change = await checkDurabilityAfterRun(monitor, 'lab', 'DISABLED', 'ALLOWED');
    assert.equal(change?.after, 'ALLOWED');
    assert.equal(monitor.asked, 0);
  });

  it('without one, reads it; a dead monitor is replaced; an unreadable setting is said as unknown, not unchanged', async () => {
    const forced = client(() => [{ delayed_durability_desc: 'FORCED' }]);
    assert.equal((await checkDurabilityAfterRun(forced, 'lab', 'DISABLED', null))?.after, 'FORCED');
    assert.equal(forced.asked, 1);

    const dead = client(() => {
      throw new Error('Connection lost');
    });
    const fresh = client(() => [{ delayed_durability_desc: 'ALLOWED' }]);
    assert.equal((await checkDurabilityAfterRun(dead, 'lab', 'DISABLED', null, async () => fresh))?.after, 'ALLOWED');

    const hidden = client(() => []);
    const unknown = (await checkDurabilityAfterRun(hidden, 'lab', 'DISABLED', null))!;
    assert.equal(unknown.after, null);
    assert.match(unknown.message, /was DISABLED when this profile began and could not be read after it \(.*\); if the script changed it, it is still changed\. Check it with SELECT/);
  });
});
