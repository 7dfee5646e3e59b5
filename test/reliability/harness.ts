// The reliability suites' stand-in: the model behind a recording engine (every request text, with its spid, in
// order) so tests can prove which statements reached the server, plus "what is left behind" checks.
import type { Engine, ExecContext, ExecRequest, SessionHandle } from '../standin/engine';
import { createStandin, type Standin, type StandinOptions } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';
import { databaseProperties } from '../standin/model/extprops';
import type { ConnectionProfile } from '../../src/db/types';
import type { DurabilityMode } from '../../src/profile';

export interface RecordedRequest {
  spid: number;
  text: string;
}

export interface ReliabilityStandin {
  engine: Standin;
  server: StandinServer;
  /** Every request the server received since the last clearLog(), in arrival order. */
  log: RecordedRequest[];
  clearLog(): void;
  /** Called synchronously as each request reaches the server (before the model runs it); null = none. */
  onRequest: ((request: RecordedRequest) => void) | null;
  /** Drops the connection of the first request this returns true for, then clears itself; null = off. */
  dropWhen: ((request: RecordedRequest) => boolean) | null;
  /**
   * Holds the first request this returns true for (before the model runs it) until release() — or until the client
   * cancels it (ATTENTION) — then clears itself; null = off. `held` resolves when a request is being held.
   */
  holdWhen: ((request: RecordedRequest) => boolean) | null;
  /** Resolves with the request when one is held (a fresh promise after each release). */
  held(): Promise<RecordedRequest>;
  /** Lets the held request run. */
  release(): void;
  /** Drop the connection of the n-th request counted from now over ALL sessions (1-based); null = off. */
  dropNthRequest(n: number | null): void;
  profile(database?: string, user?: string): ConnectionProfile;
  secret: string;
  /** DELAYED_DURABILITY of `database` straight from the model (no connection needed, so it works after faults). */
  setting(database: string): DurabilityMode;
  /** Names of durability_lens_% event sessions the model still defines (running or not). */
  leftoverSessions(): string[];
  /** The ownership marker's value on `database` straight from the model (null: none). */
  marker(database: string): string | null;
  close(): Promise<void>;
}

function requestText(request: ExecRequest): string {
  if (request.kind === 'batch') return request.sql;
  if (request.kind === 'rpc') return request.statement ?? request.procedure;
  return `${request.operation} transaction`;
}

export async function startReliabilityStandin(options: StandinOptions = {}): Promise<ReliabilityStandin> {
  // speedFactor 0: waits are accounted, never slept, so the suite stays fast on a 2-core machine.
  const engine = createStandin({ speedFactor: 0, ...options });
  const log: RecordedRequest[] = [];
  let dropIn: number | null = null;
  const handle = { onRequest: null as ReliabilityStandin['onRequest'], dropWhen: null as ReliabilityStandin['dropWhen'], holdWhen: null as ReliabilityStandin['holdWhen'] };
  let releaseHeld: (() => void) | null = null;
  let heldNow: RecordedRequest | null = null;
  let onHeld: ((r: RecordedRequest) => void) | null = null;
  const recording: Engine = {
    login: (request) => engine.login(request),
    logout: (session) => engine.logout(session),
    attentionAckDelayMs: () => engine.attentionAckDelayMs?.() ?? 0,
    onSessionKilled: (session, disconnect) => engine.onSessionKilled?.(session, disconnect),
    execute(session: SessionHandle, request: ExecRequest, context: ExecContext) {
      const recorded = { spid: session.spid, text: requestText(request) };
      log.push(recorded);
      handle.onRequest?.(recorded);
      // The model's dropAtRequest counts per session; a sweep over every request of a run needs one global count.
      const dropThis = handle.dropWhen?.(recorded) ?? false;
      if (dropThis) handle.dropWhen = null;
      if ((dropIn !== null && --dropIn === 0) || dropThis) {
        if (!dropThis) dropIn = null;
        return (async function* () {
          yield { kind: 'dropConnection' as const };
        })();
      }
      if (handle.holdWhen?.(recorded)) {
        handle.holdWhen = null;
        return (async function* () {
          await new Promise<void>((resolve) => {
            releaseHeld = resolve;
            heldNow = recorded;
            onHeld?.(recorded);
            context.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          releaseHeld = null;
          heldNow = null;
          yield* engine.execute(session, request, context);
        })();
      }
      return engine.execute(session, request, context);
    },
  };
  const server = await startStandinServer({ engine: recording, port: 0 });
  const rest: Omit<ReliabilityStandin, 'onRequest' | 'dropWhen' | 'holdWhen'> = {
    engine,
    server,
    log,
    clearLog: () => void log.splice(0, log.length),
    held: () =>
      new Promise<RecordedRequest>((resolve) => {
        if (heldNow) resolve(heldNow);
        else onHeld = resolve;
      }),
    release: () => releaseHeld?.(),
    dropNthRequest: (n) => {
      dropIn = n;
    },
    secret: 'StandIn-1',
    profile: (database = 'lab', user = 'sa') => ({
      server: '127.0.0.1',
      port: server.port,
      database,
      authentication: { type: 'sql', user },
      encrypt: false,
      trustServerCertificate: false,
      connectTimeoutMs: 5000,
    }),
    setting(database) {
      const db = engine.state.dbByName(database);
      if (!db) throw new Error(`no database ${database} in the stand-in`);
      return (['DISABLED', 'ALLOWED', 'FORCED'] as const)[db.delayedDurability];
    },
    marker(database) {
      const db = engine.state.dbByName(database);
      if (!db) throw new Error(`no database ${database} in the stand-in`);
      return databaseProperties(db).get('durability_lens.owner') ?? null;
    },
    leftoverSessions: () => [...engine.state.eventSessions.values()].map((s) => s.name).filter((n) => n.toLowerCase().startsWith('durability_lens_')),
    close: () => server.close(),
  };
  return Object.assign(handle, rest);
}

/** Polls `condition` until it holds or the deadline passes (no fixed sleeps). */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5)); // poll interval, not a timing assumption
  }
}
