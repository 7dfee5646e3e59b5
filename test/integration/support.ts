// Where the integration suite runs, decided once: the server DURABILITY_LENS_TEST_SERVER names (a real SQL Server, or
// the stand-in started as its own process) when the variable holds an ADO.NET connection string, else a stand-in
// started in this process. `useTestServer()` registers a suite's before/after hooks and hands out unique object names
// that it drops again, so a suite leaves nothing behind on a given server. API and rules: README.md in this folder.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { loadDriver } from '../../src/db/loadDriver';
import { profileFromConnectionString } from '../../src/db/connectionString';
import type { TediousSession } from '../../src/db/session';
import { fromConnectionProfile } from '../../src/db/storedProfiles';
import type { ConnectionProfile, ConnectionRole } from '../../src/db/types';
import { readDurability, type DurabilityMode } from '../../src/profile';
import { dropSession, findOrphanSessions } from '../../src/xe/cleanup';
import type { Standin, StandinOptions } from '../standin/model/index';
import type { StandinServer } from '../standin/server';
import { startStandin } from '../support/standin';

export const REAL_SERVER_ENV = 'DURABILITY_LENS_TEST_SERVER';

export function realServerConnectionString(): string | undefined {
  const v = process.env[REAL_SERVER_ENV];
  return v && v.trim() !== '' ? v : undefined;
}

export function isRealServer(): boolean {
  return realServerConnectionString() !== undefined;
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

/**
 * Opens a session through the product's driver loader (src/db/loadDriver), as profileConnectionSource does, so the
 * session is the class the workload executor accepts even when a suite connects before any run loaded the driver.
 */
async function connect(profile: ConnectionProfile, secret: string, options: { role: ConnectionRole }): Promise<TediousSession> {
  return (await loadDriver()).connect(profile, secret, options);
}

/** Where the tests' own child programs (python-tds, the CLI through `--password-env`) find the password. */
export const TEST_PASSWORD_ENV = 'LENS_TEST_PASSWORD';

export interface TestServerSetup extends StandinOptions {
  /** The whole suite needs the in-process stand-in (its control API, faults or exact figures): skipped on a given server with this reason. */
  standinOnly?: string;
  /** Stand-in TLS policy (test/standin/server.ts). */
  tls?: 'optional' | 'required' | 'loginOnly';
}

export interface TestServer {
  /** 'given': the server DURABILITY_LENS_TEST_SERVER names; 'standin': started in this process for this suite. */
  readonly kind: 'standin' | 'given';
  readonly profile: ConnectionProfile;
  readonly secret: string;
  /** The database the suite works in (lab on the stand-in, the connection string's on a given server). */
  readonly database: string;
  /** The in-process stand-in's control API (faults, state); null on a given server. */
  readonly standin: Standin | null;
  readonly standinServer: StandinServer | null;
  /** Skips the running test on a given server, naming the reason in its title (every reporter shows it). */
  standinOnly(ctx: Mocha.Context, reason: string): void;
  /** `dbo.lens_<base>_<suite id>`: unique per suite, dropped after it. */
  table(base: string): string;
  /** Like table(), for a procedure. */
  procedure(base: string): string;
  /** `durability_lens_<base>_<suite id>`: an event session a test creates itself, dropped after the suite. */
  eventSession(base: string): string;
  /** Runs before the drops in the suite's after hook (close connections a test keeps open). */
  onCleanup(fn: () => Promise<unknown> | unknown): void;
  connect(role?: ConnectionRole): Promise<TediousSession>;
  /** CLI connection flags; the password is read from TEST_PASSWORD_ENV (see cliEnv). */
  cliConnection(): string[];
  cliEnv(): Record<string, string>;
  /** A `durabilityLens.connections` entry for this server (no secret). */
  settingsConnection(name: string, development?: boolean): Record<string, unknown>;
  /** Waits until this process holds no connection to the server (stand-in: its TCP count; given: sys.dm_exec_sessions). */
  connectionsClosed(): Promise<void>;
  /** The database's DELAYED_DURABILITY and the durability_lens_% event sessions on the server. */
  state(): Promise<{ setting: DurabilityMode; eventSessions: string[] }>;
}

/** True when DURABILITY_LENS_TEST_SERVER is set: suites run on that server, not an in-process stand-in. */
export function onGivenServer(): boolean {
  return realServerConnectionString() !== undefined;
}

/** Marks every test under `suite` with the reason it is skipped (the before hook skips them all). */
function annotateSkipped(suite: Mocha.Suite, reason: string): void {
  for (const t of suite.tests) if (!t.title.includes(' — stand-in only: ')) t.title += ` — stand-in only: ${reason}`;
  for (const s of suite.suites) annotateSkipped(s, reason);
}

/**
 * For a suite that starts its own stand-ins per test (each with other model options): skipped on a given server,
 * with `reason` in every test's title. Call at the top of the describe().
 */
export function standinOnlySuite(reason: string): void {
  before(function () {
    if (!onGivenServer()) return;
    annotateSkipped(this.test!.parent!, reason);
    this.skip();
  });
}

/** Call at the top of a describe(): starts (or names) the server before the suite and cleans up after it. */
export function useTestServer(setup: TestServerSetup = {}): TestServer {
  const id = randomBytes(3).toString('hex');
  const tables = new Set<string>();
  const procedures = new Set<string>();
  const sessions = new Set<string>();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  let state: { kind: 'standin' | 'given'; profile: ConnectionProfile; secret: string; standin: Standin | null; server: StandinServer | null } | null = null;
  const current = () => {
    if (!state) throw new Error('useTestServer(): the server is known only once the suite\'s before hook has run');
    return state;
  };

  before(async function () {
    const given = realServerConnectionString();
    if (given && setup.standinOnly) {
      annotateSkipped(this.test!.parent!, setup.standinOnly);
      this.skip();
    }
    if (given) {
      const { profile, secret } = profileFromConnectionString(given);
      if (secret === undefined) throw new Error('DURABILITY_LENS_TEST_SERVER has no Password: the suite needs a SQL login');
      state = { kind: 'given', profile, secret, standin: null, server: null };
      return;
    }
    const { standinOnly: _reason, ...standinSetup } = setup;
    // speedFactor 0 (startStandin's default): waits are accounted, not slept, so the suites stay fast (a suite may ask for 1).
    const h = await startStandin(standinSetup);
    state = { kind: 'standin', profile: h.profile, secret: h.secret, standin: h.engine, server: h.server };
  });

  after(async () => {
    if (!state) return;
    const s = state;
    try {
      for (const fn of cleanups.splice(0)) await fn();
      await dropCreated(s.profile, s.secret);
    } finally {
      state = null;
      await s.server?.close();
    }
  });

  async function dropCreated(profile: ConnectionProfile, secret: string): Promise<void> {
    if (tables.size + procedures.size + sessions.size === 0) return;
    const session = await connect(profile, secret, { role: 'monitor' });
    try {
      for (const p of procedures) await session.execute(`IF OBJECT_ID(N'${p}', N'P') IS NOT NULL DROP PROCEDURE ${p};`);
      for (const t of tables) await session.execute(`IF OBJECT_ID(N'${t}', N'U') IS NOT NULL DROP TABLE ${t};`);
      for (const e of sessions) await dropSession(session, e);
      // Nothing of this suite is left: no object and no event session carrying its id.
      const left = await session.query("SELECT name FROM sys.objects WHERE name LIKE @pattern", [{ name: 'pattern', type: 'nvarchar', value: `lens[_]%[_]${id}` }]);
      if (left.length > 0) throw new Error(`the suite left objects behind: ${left.map((r) => String(r.name)).join(', ')}`);
      const sessionsLeft = (await findOrphanSessions(session, [])).filter((n) => n.endsWith(`_${id}`));
      if (sessionsLeft.length > 0) throw new Error(`the suite left event sessions behind: ${sessionsLeft.join(', ')}`);
    } finally {
      await session.close();
    }
  }

  const server: TestServer = {
    get kind() { return current().kind; },
    get profile() { return current().profile; },
    get secret() { return current().secret; },
    get database() { return current().profile.database; },
    get standin() { return current().standin; },
    get standinServer() { return current().server; },
    standinOnly(ctx, reason) {
      if (current().kind === 'standin') return;
      const test = ctx.test;
      if (test && !test.title.includes(' — stand-in only: ')) test.title += ` — stand-in only: ${reason}`;
      ctx.skip();
    },
    table(base) {
      const name = `dbo.lens_${base}_${id}`;
      tables.add(name);
      return name;
    },
    procedure(base) {
      const name = `dbo.lens_${base}_${id}`;
      procedures.add(name);
      return name;
    },
    eventSession(base) {
      const name = `durability_lens_${base}_${id}`;
      sessions.add(name);
      return name;
    },
    onCleanup(fn) {
      cleanups.push(fn);
    },
    connect(role = 'monitor') {
      const s = current();
      return connect(s.profile, s.secret, { role });
    },
    cliConnection() {
      const p = current().profile;
      if (p.authentication.type !== 'sql') throw new Error('the suite connects with a SQL login');
      const encrypt = p.encrypt === 'strict' ? 'strict' : p.encrypt ? 'true' : 'false';
      return [
        '--server', p.instanceName ? `${p.server}\\${p.instanceName}` : p.server,
        ...(p.port !== undefined ? ['--port', String(p.port)] : []),
        '--database', p.database, '--user', p.authentication.user, '--password-env', TEST_PASSWORD_ENV, '--encrypt', encrypt,
        ...(p.trustServerCertificate ? ['--trust-server-certificate'] : []),
      ];
    },
    cliEnv() {
      return { [TEST_PASSWORD_ENV]: current().secret };
    },
    settingsConnection(name, development = true) {
      return { ...fromConnectionProfile(name, current().profile, development) };
    },
    async connectionsClosed() {
      const s = current();
      if (s.server) {
        await waitFor(() => s.server!.connections === 0, 'every connection closed');
        return;
      }
      // A given server: this process's sessions other than the one asking (host_process_id is the client's PID,
      // sys.dm_exec_sessions: https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-sessions-transact-sql).
      const session = await connect(s.profile, s.secret, { role: 'monitor' });
      try {
        await waitFor(async () => {
          const [row] = await session.query('SELECT COUNT(*) AS n FROM sys.dm_exec_sessions WHERE host_process_id = @pid AND session_id <> @@SPID AND is_user_process = 1', [{ name: 'pid', type: 'int', value: process.pid }]);
          return Number(row?.n) === 0;
        }, 'every connection of this process closed on the given server');
      } finally {
        await session.close();
      }
    },
    async state() {
      const s = current();
      const session = await connect(s.profile, s.secret, { role: 'monitor' });
      try {
        return { setting: await readDurability(session, s.profile.database), eventSessions: await findOrphanSessions(session, []) };
      } finally {
        await session.close();
      }
    },
  };
  return server;
}

