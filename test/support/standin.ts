// The in-process stand-in (test/standin/) for a mocha suite: `useStandin()` registers the hooks that start it before
// the suite and close it after, and hands back its model (faults, state), its server (port, open connections) and the
// connection profile of its admin login. `useStandins()` is for suites whose tests each need other model options: a
// stand-in started in a test is closed after that test. Suites that should also run on a real server use
// useTestServer() (test/integration/support.ts); figures asserted against the stand-in are the model's.
import type { ConnectionProfile } from '../../src/db/types';
import { createStandin, type Standin, type StandinOptions } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';

/** The stand-in's admin login and the database every model has (test/standin/MODEL.md). */
export const STANDIN_ADMIN = { user: 'sa', password: 'StandIn-1', database: 'lab' } as const;

export interface StandinSetup extends StandinOptions {
  /** Server side TLS policy (test/standin/server.ts): 'optional' (default), 'required', 'loginOnly'. */
  tls?: 'optional' | 'required' | 'loginOnly' | undefined;
}

export interface StandinHarness {
  /** The model: faults, state, restart. */
  engine: Standin;
  /** The TDS server: port, open connections, connection stats. */
  server: StandinServer;
  /** The admin login (sa) in database lab, clear text, 5 s connect timeout. */
  profile: ConnectionProfile;
  secret: string;
  close(): Promise<void>;
}

/** The connection profile of the admin login on a stand-in listening on `port`. */
export function standinProfile(port: number): ConnectionProfile {
  return {
    server: '127.0.0.1',
    port,
    database: STANDIN_ADMIN.database,
    authentication: { type: 'sql', user: STANDIN_ADMIN.user },
    encrypt: false,
    trustServerCertificate: false,
    connectTimeoutMs: 5000,
  };
}

/**
 * Starts a stand-in on a free port. speedFactor 0 unless `setup` says otherwise: waits are accounted, not slept, so
 * suites stay fast and their figures do not depend on the machine's load.
 */
export async function startStandin(setup: StandinSetup = {}): Promise<StandinHarness> {
  const { tls, ...options } = setup;
  const engine = createStandin({ speedFactor: 0, ...options });
  const server = await startStandinServer({ engine, port: 0, tls: tls ? { encryption: tls } : undefined });
  return { engine, server, profile: standinProfile(server.port), secret: STANDIN_ADMIN.password, close: () => server.close() };
}

export interface UseStandinOptions {
  /**
   * Before closing the stand-in, wait (up to 5 s) until the code under test has closed every connection, and fail the
   * after hook naming how many are still open: a suite that says so proves the product leaks none.
   */
  expectConnectionsClosed?: boolean;
}

/** Polls until the stand-in has no open connection; throws after `timeoutMs` with the count still open. */
export async function connectionsClosed(server: StandinServer, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (server.connections > 0) {
    if (Date.now() > deadline) throw new Error(`${server.connections} connection(s) to the stand-in still open after ${timeoutMs} ms`);
    await new Promise<void>((resolve) => setTimeout(resolve, 10)); // poll interval, not a timing assumption
  }
}

/**
 * Call at the top of a describe(): one stand-in for the whole suite, started in a before hook and closed in an after
 * hook. Its fields are readable once the before hook has run (inside hooks and tests).
 */
export function useStandin(setup: StandinSetup = {}, options: UseStandinOptions = {}): StandinHarness {
  let started: StandinHarness | null = null;
  const current = (): StandinHarness => {
    if (!started) throw new Error('useStandin(): the stand-in exists only once the suite\'s before hook has run');
    return started;
  };
  before(async () => {
    started = await startStandin(setup);
  });
  after(async () => {
    const h = started;
    started = null;
    if (!h) return;
    try {
      if (options.expectConnectionsClosed) await connectionsClosed(h.server);
    } finally {
      await h.close();
    }
  });
  return {
    get engine() { return current().engine; },
    get server() { return current().server; },
    get profile() { return current().profile; },
    get secret() { return current().secret; },
    close: async () => undefined, // the suite's after hook closes it
  };
}

export interface StandinsPerTest {
  /** Starts a stand-in with `setup` for the running test; it is closed after the test, passed or failed. */
  start(setup?: StandinSetup): Promise<StandinHarness>;
}

/** Call at the top of a describe() whose tests each start their own stand-in (other model options per test). */
export function useStandins(options: UseStandinOptions = {}): StandinsPerTest {
  const open: StandinHarness[] = [];
  afterEach(async () => {
    const closing = open.splice(0);
    try {
      if (options.expectConnectionsClosed) for (const h of closing) await connectionsClosed(h.server);
    } finally {
      await Promise.all(closing.map((h) => h.close()));
    }
  });
  return {
    async start(setup = {}) {
      const h = await startStandin(setup);
      open.push(h);
      return h;
    },
  };
}
