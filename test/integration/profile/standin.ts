// The in-process stand-in with its model handle (faults, state), for the extension's unit tests (test/unit/extension)
// and — through harnessOf(useTestServer()) — for integration suites that need the model itself. Integration suites
// choose their server with useTestServer() (../support.ts), never startStandin(): that is what honours
// DURABILITY_LENS_TEST_SERVER. Figures asserted against the stand-in are the model's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../../src/db/connect';
import type { ConnectionProfile } from '../../../src/db/types';
import { readDurability, type DurabilityMode } from '../../../src/profile';
import { findOrphanSessions } from '../../../src/xe/logFlushTrace';
import { createStandin, type Standin, type StandinOptions } from '../../standin/model/index';
import { startStandinServer, type StandinServer } from '../../standin/server';
import type { TestServer } from '../support';

export interface StandinHarness {
  engine: Standin;
  server: StandinServer;
  profile: ConnectionProfile;
  secret: string;
  close(): Promise<void>;
}

export async function startStandin(options: StandinOptions = {}): Promise<StandinHarness> {
  // speedFactor 0: waits are accounted but not slept, so the suites stay fast.
  const engine = createStandin({ speedFactor: 0, ...options });
  const server = await startStandinServer({ engine });
  const profile: ConnectionProfile = {
    server: '127.0.0.1',
    port: server.port,
    database: 'lab',
    authentication: { type: 'sql', user: 'sa' },
    encrypt: false,
    trustServerCertificate: false,
    connectTimeoutMs: 5000,
  };
  return { engine, server, profile, secret: 'StandIn-1', close: () => server.close() };
}

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
