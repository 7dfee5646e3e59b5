// The stand-in's clock is UTC (SYSDATETIMEOFFSET's offset is 0), whatever the zone of the machine running the tests: a
// date/time text without an offset is read as UTC by CAST, DATEADD and DATEDIFF alike. JavaScript's own parser reads
// '2026-11-25 10:00:00' in the machine's zone, which made DATEADD/DATEDIFF answer differently in Chatham than in CI.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { AWKWARD_ZONES, inTimeZone } from '../../support/timeZone';
import { connect, rows } from './harness';

describe('stand-in model: date/time texts are UTC in every machine time zone', () => {
  const s = createStandin({ speedFactor: 0 });

  for (const zone of ['UTC', ...AWKWARD_ZONES]) {
    it(`reads '2026-11-25 10:00:00' as 10:00 UTC in CAST, DATEADD and DATEDIFF with the machine in ${zone}`, async () => {
      const [r] = await inTimeZone(zone, async () => rows(s, await connect(s), `SELECT
  CAST('2026-11-25 10:00:00' AS datetime2) AS cast_text,
  DATEADD(HOUR, 1, '2026-11-25 10:00:00') AS added,
  DATEDIFF(MINUTE, '2026-11-25 10:00:00', '2026-11-25T10:30:00Z') AS minutes,
  DATEDIFF(MINUTE, '2026-11-25', '2026-11-25 00:45') AS from_midnight`));
      assert.deepEqual(r, {
        cast_text: new Date(Date.UTC(2026, 10, 25, 10)),
        added: new Date(Date.UTC(2026, 10, 25, 11)),
        minutes: 30,
        from_midnight: 45,
      });
    });
  }
});
