// Helpers of the profile suites over the in-process stand-in: harnessOf() (a useTestServer() suite's stand-in as a
// harness), the S1 sample scaled down, serverState(). Stand-ins themselves come from test/support/standin.ts
// (useStandin/useStandins; startStandin is re-exported here for the extension's unit tests). Integration suites that
// may run on a given server choose it with useTestServer() (../support.ts), which honours DURABILITY_LENS_TEST_SERVER.
// Figures asserted against the stand-in are the model's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../../src/db/connect';
import { readDurability, type DurabilityMode } from '../../../src/profile';
import { findOrphanSessions } from '../../../src/xe/logFlushTrace';
import type { StandinHarness } from '../../support/standin';
import type { TestServer } from '../support';

export { startStandin, type StandinHarness } from '../../support/standin';

/** A suite's in-process stand-in (useTestServer) as a harness; only valid where the suite runs on the stand-in. */
export function harnessOf(t: TestServer): StandinHarness {
  return {
    get engine() { return t.standin!; },
    get server() { return t.standinServer!; },
    get profile() { return t.profile; },
    get secret() { return t.secret; },
    close: async () => undefined,
  };
}

/** The S1 sample (T-SQL engineer's samples/), scaled down to `rows` inserts. */
export function s1Script(rows: number): string {
  const text = readFileSync(join(__dirname, '../../../samples/s1-single-row-inserts.sql'), 'utf8');
  if (!/WHILE @i < 10000/.test(text)) throw new Error('samples/s1-single-row-inserts.sql changed: update s1Script');
  return text.replace('WHILE @i < 10000', `WHILE @i < ${rows}`);
}

/** What a fresh connection sees afterwards: the setting and any of our event sessions left behind. */
export async function serverState(h: StandinHarness): Promise<{ setting: DurabilityMode; eventSessions: string[] }> {
  const s = await connect(h.profile, h.secret, { role: 'monitor' });
  try {
    return { setting: await readDurability(s, 'lab'), eventSessions: await findOrphanSessions(s, []) };
  } finally {
    await s.close();
  }
}
