// Where the integration suite runs: the TDS stand-in (default), or a real SQL Server when
// DURABILITY_LENS_TEST_SERVER holds an ADO.NET connection string (see README.md in this folder).
import { createServer } from 'node:net';
import { profileFromConnectionString } from '../../src/db/connectionString';
import type { ConnectionProfile } from '../../src/db/types';

export const REAL_SERVER_ENV = 'DURABILITY_LENS_TEST_SERVER';

/** Options the stand-in model understands (test/standin/model/state.ts StandinOptions), kept loose here on purpose. */
export interface StandinSetup {
  version?: 2019 | 2022 | 2025;
  /** Play Azure SQL Database (EngineEdition 5). */
  azure?: boolean;
  /** Which product the model plays: SQL Server (default), Managed Instance (EngineEdition 8) or Azure SQL Database. */
  product?: 'sqlserver' | 'mi' | 'azure-sqldb';
  /** Azure SQL Database service objective (Basic, S0, S1 and pools need ##MS_ServerStateReader## for several DMVs). */
  serviceObjective?: string;
  platform?: 'Linux' | 'Windows';
  speedFactor?: number;
  logins?: { name: string; password: string; sysadmin?: boolean; serverPermissions?: string[]; databases?: string[]; databasePermissions?: Record<string, string[]>; defaultDatabase?: string }[];
  databases?: { name: string; delayedDurability?: 'DISABLED' | 'ALLOWED' | 'FORCED' }[];
  /** Server side TLS policy (test/standin/server.ts): 'optional' (default), 'required', 'loginOnly'. */
  tls?: 'optional' | 'required' | 'loginOnly';
}

/** The part of the stand-in's control API (test/standin/model/index.ts Standin) these suites use. */
export interface StandinControl {
  restart(): void;
  faults: {
    dropAfterMs: number | null;
    statements: { pattern: RegExp; number: number; message: string; class?: number; times?: number }[];
    reset(): void;
  };
}

export interface TestTarget {
  kind: 'standin' | 'real';
  /** A profile for the admin login (sa on the stand-in), database lab (or the one in the connection string). */
  profile: ConnectionProfile;
  secret: string | undefined;
  /** Open TCP connections on the stand-in (null on a real server): lets tests prove they closed theirs. */
  openConnections(): number | null;
  /** Stand-in control (restart, faults); null on a real server. */
  standin: StandinControl | null;
  close(): Promise<void>;
}

export function realServerConnectionString(): string | undefined {
  const v = process.env[REAL_SERVER_ENV];
  return v && v.trim() !== '' ? v : undefined;
}

export function isRealServer(): boolean {
  return realServerConnectionString() !== undefined;
}

/** Paths are variables so this file type-checks before the stand-in's model entry point exists. */
const STANDIN_MODEL = '../standin/model/index';
const STANDIN_SERVER = '../standin/server';

export async function standinAvailable(): Promise<boolean> {
  try {
    await import(STANDIN_MODEL);
    await import(STANDIN_SERVER);
    return true;
  } catch {
    return false;
  }
}

export const STANDIN_ADMIN = { user: 'sa', password: 'StandIn-1', database: 'lab' };

export async function startTarget(setup: StandinSetup = {}): Promise<TestTarget> {
  const connectionString = realServerConnectionString();
  if (connectionString) {
    const { profile, secret } = profileFromConnectionString(connectionString);
    return { kind: 'real', profile, secret, openConnections: () => null, standin: null, close: async () => undefined };
  }
  const model = (await import(STANDIN_MODEL)) as { createStandin(options?: StandinSetup): unknown };
  const serverModule = (await import(STANDIN_SERVER)) as {
    startStandinServer(options: { engine: unknown; port?: number; tls?: { encryption?: string } }): Promise<{ port: number; readonly connections: number; close(): Promise<void> }>;
  };
  const { tls, ...modelOptions } = setup;
  const created = model.createStandin(modelOptions) as { engine?: unknown; login?: unknown };
  // createStandin returns the Engine (or an object holding it as `engine`).
  const engine = (typeof created.login === 'function' ? created : created.engine) as StandinControl;
  const server = await serverModule.startStandinServer({ engine, port: 0, ...(tls ? { tls: { encryption: tls } } : {}) });
  return {
    kind: 'standin',
    profile: {
      server: '127.0.0.1',
      port: server.port,
      database: STANDIN_ADMIN.database,
      authentication: { type: 'sql', user: STANDIN_ADMIN.user },
      encrypt: false,
      trustServerCertificate: false,
      connectTimeoutMs: 5000,
    },
    secret: STANDIN_ADMIN.password,
    openConnections: () => server.connections,
    standin: engine,
    close: () => server.close(),
  };
}

/** A port nothing listens on: bind an ephemeral port, then release it. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Polls `condition` until it holds or the deadline passes (no fixed sleeps). */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 10)); // poll interval, not a timing assumption
  }
}
