// The TDS stand-in as the e2e run and `npm run demo` use it: started in this process (so tests can read its
// state directly), the connection profile that points at it, and the scaled-down S1 script. A test instrument.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createStandin, type Standin, type StandinOptions } from '../../standin/model/index';
import { startStandinServer, type StandinServer } from '../../standin/server';
import { repoRoot } from './paths';

/** The stand-in's built-in login (test/standin/README.md); typed into VS Code's password prompt, never into settings. */
export const STANDIN_USER = 'sa';
export const STANDIN_PASSWORD = 'StandIn-1';
export const STANDIN_DATABASE = 'lab';
export const STANDIN_PROFILE_NAME = 'Stand-in (lab)';

export interface RunningStandin {
  engine: Standin;
  server: StandinServer;
  /** What a fresh observer sees on the stand-in: the lab database's setting and our event sessions left behind. */
  leftBehind(database?: string): { delayedDurability: string; eventSessions: string[] };
  close(): Promise<void>;
}

const MODES = ['DISABLED', 'ALLOWED', 'FORCED'] as const;

export async function startE2eStandin(options: StandinOptions & { port?: number } = {}): Promise<RunningStandin> {
  const { port, ...model } = options;
  const engine = createStandin(model);
  const server = await startStandinServer({ engine, port: port ?? 0 });
  return {
    engine,
    server,
    leftBehind(database = STANDIN_DATABASE) {
      const db = engine.state.dbByName(database);
      if (!db) throw new Error(`the stand-in has no database ${database}`);
      const eventSessions = [...engine.state.eventSessions.values()].map((s) => s.name).filter((n) => n.toLowerCase().startsWith('durability_lens_'));
      return { delayedDurability: MODES[db.delayedDurability], eventSessions };
    },
    close: () => server.close(),
  };
}

/**
 * One entry of the `durabilityLens.connections` setting for the stand-in. No password here: the extension asks
 * for it and keeps it in SecretStorage. `development: true` skips the comparison confirmation dialog.
 */
export function standinConnectionSetting(port: number, development = true): Record<string, unknown> {
  return {
    name: STANDIN_PROFILE_NAME,
    server: '127.0.0.1',
    port,
    database: STANDIN_DATABASE,
    authenticationType: 'sql',
    user: STANDIN_USER,
    // The stand-in offers TLS with a self-signed CA; clear text keeps the demo free of a trust prompt on loopback.
    encrypt: false,
    development,
  };
}

/** The S1 sample with its loop scaled down to `rows` inserts (the e2e keeps the comparison quick). */
export function scaledS1(rows: number): string {
  const text = fs.readFileSync(path.join(repoRoot, 'samples', 's1-single-row-inserts.sql'), 'utf8');
  const loop = /WHILE @i < 10000\b/;
  if (!loop.test(text)) throw new Error('samples/s1-single-row-inserts.sql no longer loops "WHILE @i < 10000": update scaledS1');
  return text.replace(loop, `WHILE @i < ${rows}`).replace(/^-- S1: 10,000/m, `-- S1 (scaled down for the e2e run): ${rows}`);
}
