// One event session's lifecycle, written once for both traces (logFlushTrace.ts, statementTrace.ts): the platform's
// rules (scope, event_file storage) → CREATE → START → read targets → STOP → DROP, with an optional companion session
// whose failures are notes, never the trace's. Each trace supplies only its SQL, its target reads and its readers.
// Sessions are named durability_lens_<random> (sessionSql.ts), so a crash's leftovers are found by cleanup.ts.

import type { PlannedQuery } from '../db/batch';
import type { Row, SqlClient } from '../db/types';
import { dropSession } from './cleanup';
import { mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
import { dropSessionSql, eventFileReadPattern, eventFileStorageOf, intOrNull, sessionEventFilePath, sessionStateSql, type EventFileStorage, type SessionScope } from './sessionSql';

export type SessionState = 'prepared' | 'started' | 'stopped' | 'dropped' | 'failed';

/** EngineEdition values that require ON DATABASE: 5 Azure SQL Database, 12 Fabric SQL DB (reference §0, §4.2). */
const DATABASE_SCOPED_EDITIONS = new Set([5, 12]);

/** The scope an event session needs on a server of this EngineEdition (null: not known, so the server's). */
export function sessionScopeOf(engineEdition: number | null): SessionScope {
  return engineEdition !== null && DATABASE_SCOPED_EDITIONS.has(engineEdition) ? 'database' : 'server';
}

/** The platform from PLATFORM_SQL's row: the scope a session needs there, and who a GRANT names (login or user). */
export function platformOf(row: Row | undefined, scopeOverride?: SessionScope): XePlatform & { engineEdition: number | null } {
  const engineEdition = intOrNull(row?.engine_edition);
  const scope = scopeOverride ?? sessionScopeOf(engineEdition);
  const principal = scope === 'server' ? row?.login_name : row?.user_name;
  return { scope, engineEdition, majorVersion: intOrNull(row?.product_major_version), principal: typeof principal === 'string' ? principal : null };
}

/** A session's own event_file: the path it writes (named after the session) and the pattern that reads only it back. */
export function sessionEventFile(userPath: string, sessionName: string, platform: { scope: SessionScope; engineEdition?: number | null }): { path: string; pattern: string; storage: EventFileStorage } {
  const storage = eventFileStorageOf(platform.engineEdition ?? null, platform.scope);
  const path = sessionEventFilePath(userPath, sessionName, storage);
  return { path, pattern: eventFileReadPattern(path, storage), storage };
}

/** A trace option the plan refused (a bad event_file path): said before anything reaches the server. */
export function invalidTraceOption(sessionName: string, err: unknown): XeSessionError {
  return new XeSessionError('prepare', sessionName, `Invalid trace option: ${(err as Error).message}. Nothing was changed on the server.`, { cause: err });
}

/** CREATE EVENT SESSION on a name in use: error 25631 "The event session, "x", already exists." */
export function isNameCollision(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = (e as { cause?: unknown }).cause) {
    const { number, message, serverErrorNumber } = e as { number?: unknown; message?: unknown; serverErrorNumber?: unknown };
    if (number === 25631 || serverErrorNumber === 25631) return true;
    if (typeof message === 'string' && /event session.*already exists/i.test(message)) return true;
  }
  return false;
}

/** target_data of the rows readTargetsSql returned, by session and target: undefined when the target is absent. */
export function targetDataOf(rows: readonly Row[]): (session: string, target: string) => string | null | undefined {
  return (session, target) => {
    const row = rows.find((r) => r.target_name === target && (r.session_name === undefined || r.session_name === session));
    if (!row) return undefined;
    return typeof row.target_data === 'string' ? row.target_data : null;
  };
}

/** A companion's counts are optional: its failures become notes (what it was for, and where the figure comes from instead). */
export interface CompanionSpec {
  name: string;
  createSql: string;
  /** "latency histogram", "executions histogram": named in the note when it could not start. */
  what: string;
  /** Where the figure comes from without it: "latencies come from the sampled events". */
  fallback: string;
}

/** A second session beside the main one holding exact counts (histogram targets). */
export class CompanionSession {
  state: 'none' | 'failed' | 'created' | 'started' | 'stopped' = 'none';
  readonly notes: string[] = [];

  constructor(
    readonly spec: CompanionSpec,
    private readonly scope: SessionScope,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** It may exist on the server (so dispose must drop it). */
  get mayExist(): boolean {
    return this.state !== 'none';
  }

  /** CREATE, then START only if it worked; `afterPrevious`: the CREATE too waits on the query before it. */
  startQueries(afterPrevious: boolean): PlannedQuery[] {
    return [
      { sql: this.spec.createSql, dependsOnPrevious: afterPrevious },
      { sql: sessionStateSql(this.name, this.scope, 'START'), dependsOnPrevious: true },
    ];
  }

  async start(steps: SqlClient): Promise<void> {
    try {
      // Marked before the CREATE: whatever it did on the server, dispose then drops what may exist ...
      this.state = 'failed';
      await steps.execute(this.spec.createSql);
      this.state = 'created';
      await steps.execute(sessionStateSql(this.name, this.scope, 'START'));
      this.state = 'started';
    } catch (err) {
      // ... unless the name was taken: that session is someone else's, never dropped.
      if (this.state === 'failed' && isNameCollision(err)) this.state = 'none';
      this.notes.push(`The ${this.spec.what} session ${this.name} could not be started (${(err as Error).message}); ${this.fallback()}.`);
    }
  }

  private fallback(): string {
    return this.spec.fallback;
  }

  stopSql(): string | null {
    return this.state === 'started' ? sessionStateSql(this.name, this.scope, 'STOP') : null;
  }

  /** STOP and DROP, the DROP only after the STOP worked: for a companion whose targets were read with the main session's. */
  endQueries(): PlannedQuery[] {
    const stop = this.stopSql();
    return stop ? [{ sql: stop }, { sql: dropSessionSql(this.name, this.scope), dependsOnPrevious: true }] : [];
  }

  /** STOP and DROP from a stop request's answers; a failure leaves it to dispose (which reports a failure). */
  async end(steps: SqlClient): Promise<void> {
    if (this.state !== 'started') return;
    try {
      await steps.execute(sessionStateSql(this.name, this.scope, 'STOP'));
      this.state = 'stopped';
      await steps.execute(dropSessionSql(this.name, this.scope));
      this.state = 'none';
    } catch {
      // dispose drops it.
    }
  }

  /** STOP from a stop request's answers; a failure is left to the drop (dropping ends it as well). */
  async stop(steps: SqlClient): Promise<void> {
    const sql = this.stopSql();
    if (!sql) return;
    try {
      await steps.execute(sql);
      this.state = 'stopped';
    } catch {
      // dispose drops it.
    }
  }
}

/**
 * The main session's state machine on one connection: CREATE and START (each failure mapped to its step, with the
 * GRANT), STOP, and the drop of everything that may exist — retried on a fresh connection when the first one died.
 */
export class EventSessionRunner {
  state: SessionState = 'prepared';
  startedAt: Date | null = null;
  private createAttempted = false;

  constructor(
    readonly client: SqlClient,
    readonly name: string,
    readonly platform: XePlatform,
    private readonly createSql: string,
    readonly companion: CompanionSession | null,
  ) {}

  get scope(): SessionScope {
    return this.platform.scope;
  }

  fail(step: XeStep, err: unknown): XeSessionError {
    this.state = 'failed';
    return mapSessionError(step, this.name, this.platform, err);
  }

  /** CREATE, then START only if the CREATE worked. */
  startQueries(): PlannedQuery[] {
    return [{ sql: this.createSql }, { sql: sessionStateSql(this.name, this.scope, 'START'), dependsOnPrevious: true }];
  }

  assertPrepared(): void {
    if (this.state !== 'prepared') throw new Error(`cannot start a session that is ${this.state}`);
  }

  /** From here on the session may exist on the server, whatever the request did: dispose drops it. */
  markCreateAttempted(): void {
    this.createAttempted = true;
  }

  /** CREATE and START from the start request's answers. A refused CREATE drops a companion already started. */
  async createAndStart(steps: SqlClient): Promise<void> {
    this.markCreateAttempted();
    try {
      await steps.execute(this.createSql);
    } catch (err) {
      // The companion is ours whatever happened to the main CREATE (a caller may abandon this instance on a name clash).
      await this.dropCompanionQuietly();
      throw this.fail('create', err);
    }
    try {
      await steps.execute(sessionStateSql(this.name, this.scope, 'START'));
    } catch (err) {
      throw this.fail('start', err);
    }
    this.state = 'started';
    this.startedAt = new Date();
  }

  stopSql(): string {
    return sessionStateSql(this.name, this.scope, 'STOP');
  }

  async stop(steps: SqlClient): Promise<void> {
    try {
      await steps.execute(this.stopSql());
    } catch (err) {
      throw this.fail('stop', err);
    }
    this.state = 'stopped';
  }

  private async dropCompanionQuietly(): Promise<void> {
    if (!this.companion?.mayExist) return;
    try {
      await dropSession(this.client, this.companion.name, this.scope, this.platform);
      this.companion.state = 'none';
    } catch {
      // dispose tries again (and reports it).
    }
  }

  /** The sessions dispose must drop: the main one once CREATE was attempted, the companion once it may exist. */
  dropNames(): string[] {
    const names: string[] = [];
    if (this.createAttempted && this.state !== 'dropped') names.push(this.name);
    if (this.companion?.mayExist) names.push(this.companion.name);
    return names;
  }

  /**
   * Drops every session that may exist over `client` (which may hold composed answers); the first failure opens one
   * fresh connection from `reconnect` for that drop and the rest. Every name is tried; the first error is thrown after.
   */
  async dropAll(client: SqlClient = this.client, reconnect?: () => Promise<SqlClient>): Promise<void> {
    let firstError: unknown = null;
    let reconnected = false;
    for (const name of this.dropNames()) {
      try {
        await dropSession(client, name, this.scope, this.platform);
      } catch (first) {
        if (!reconnect) {
          firstError ??= first;
          continue;
        }
        // The usual cause is a dropped connection: a new one can still drop the server-side session.
        if (!reconnected) {
          client = await reconnect();
          reconnected = true;
        }
        try {
          await dropSession(client, name, this.scope, this.platform);
        } catch (second) {
          firstError ??= second;
          continue;
        }
      }
      if (name === this.name) this.state = 'dropped';
      else if (this.companion) this.companion.state = 'none';
    }
    if (firstError !== null) throw firstError;
  }
}

export interface WithTraceOptions {
  /** Opens a fresh connection when the drop fails on the original one. */
  reconnect?: () => Promise<SqlClient>;
  /** Told when the drop failed after `body` failed (the body's error is the one rethrown). */
  onCleanupError?: (err: XeSessionError) => void;
}

/** What withEventSession needs of a session: its name and platform for the error, and its drop. */
export interface DisposableSession {
  readonly name: string;
  readonly platform: XePlatform;
  cleanupError: XeSessionError | null;
  dispose(reconnect?: () => Promise<SqlClient>): Promise<void>;
}

/**
 * Runs `body` on a prepared session and drops the session in `finally` whatever happened. A drop failure is thrown
 * when `body` succeeded; when `body` failed its error wins and the drop failure is reported aside.
 */
export async function withEventSession<S extends DisposableSession, T>(session: S, body: (session: S) => Promise<T>, withOpts: WithTraceOptions = {}): Promise<T> {
  let bodyFailed = false;
  try {
    return await body(session);
  } catch (err) {
    bodyFailed = true;
    throw err;
  } finally {
    try {
      await session.dispose(withOpts.reconnect);
    } catch (err) {
      const mapped = mapSessionError('drop', session.name, session.platform, err);
      session.cleanupError = mapped;
      if (!bodyFailed) throw mapped;
      withOpts.onCleanupError?.(mapped);
    }
  }
}
