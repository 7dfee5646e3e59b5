// A scripted SQL Server for profile tests: answers the plan/guard queries from a tiny state (the database's
// DELAYED_DURABILITY), records every statement and journal write in one ordered log, and can fail on demand.
import type { BatchReport, ConnectionRole, QueryParameter, Row, SqlSession, WorkloadBatch } from '../../../src/db/types';
import { CHANGE_TRACKING_SQL, DATABASE_SQL, PREFLIGHT_SERVER_SQL, SERVER_IDENTITY_SQL } from '../../../src/probes';
import { READ_DURABILITY_SQL } from '../../../src/profile/durabilityGuard';
import { GET_APPLOCK_SQL, LOCK_HOLDER_SQL, RELEASE_APPLOCK_SQL } from '../../../src/profile/databaseLock';
import { TARGET_DATABASE_SQL } from '../../../src/profile/profileRun';
import { ADD_MARKER_SQL, DROP_MARKER_SQL, READ_MARKER_SQL, UPDATE_MARKER_SQL } from '../../../src/profile/ownershipMarker';
import { HOLD_RUN_LOCK_SQL, PROBE_RUN_LOCK_SQL } from '../../../src/profile/ownerLiveness';
import type { RestoreEntry, RestoreJournal } from '../../../src/profile/restoreJournal';
import type { ConnectionSource, DurabilityMode, WorkloadExecutor } from '../../../src/profile/types';

export class FakeServer {
  setting: DurabilityMode = 'DISABLED';
  log: string[] = [];
  database = { name: 'lab', cdc: false, published: false, ag: false, state: 'ONLINE' };
  /** The next ALTER fails like a locked database (the setting does not change). */
  alterLocked = false;
  /** ALTERs still to refuse with 5061 before they succeed (a short-lived lock of another session). */
  alterLockedTimes = 0;
  /** Another comparison's session holds the database lock (sp_getapplock answers -1). */
  lockHeld = false;
  /** Every statement on a connection opened before this many opens fails as a dropped connection. */
  dropMonitorAfterAlters: number | null = null;
  /** The ownership marker (an extended property of the database): its JSON value, or null. Not logged. */
  marker: string | null = null;
  /** Run-lock resources held by some session (the workload's presence token). */
  runLocks = new Set<string>();
  private alters = 0;
  private opens = 0;
  private deadConnections = new Set<number>();

  client(id: number, role: ConnectionRole): SqlSession {
    const query = async (sql: string, params?: readonly QueryParameter[]): Promise<Row[]> => {
      if (this.deadConnections.has(id)) throw Object.assign(new Error('The connection is closed.'), { code: 'ECLOSE' });
      const marker = this.answerMarker(sql, params ?? []);
      return marker ?? this.answer(sql, id);
    };
    return { role, spid: 50 + id, encrypted: null, query, execute: async (sql, p) => void (await query(sql, p)), close: async () => void this.log.push(`close#${id}`) };
  }

  /** The marker and run-lock statements (ownershipMarker.ts, ownerLiveness.ts); null for anything else. */
  private answerMarker(sql: string, params: readonly QueryParameter[]): Row[] | null {
    const value = (name: string) => params.find((p) => p.name === name)?.value as string | undefined;
    const serverError = (number: number) => Object.assign(new Error(`error ${number}`), { number, state: 1, class: 16, message: `error ${number}`, lineNumber: 1 });
    if (sql === READ_MARKER_SQL) return this.marker === null ? [] : [{ value: this.marker }];
    if (sql === ADD_MARKER_SQL) {
      if (this.marker !== null) throw serverError(15233);
      this.marker = value('value') ?? null;
      return [];
    }
    if (sql === UPDATE_MARKER_SQL || sql === DROP_MARKER_SQL) {
      if (this.marker === null) throw serverError(15217);
      this.marker = sql === UPDATE_MARKER_SQL ? value('value') ?? null : null;
      return [];
    }
    if (sql === HOLD_RUN_LOCK_SQL) {
      this.runLocks.add(value('resource') ?? '');
      return [{ result: 0 }];
    }
    if (sql === PROBE_RUN_LOCK_SQL) return [{ result: this.runLocks.has(value('resource') ?? '') ? -1 : 0 }];
    return null;
  }

  private answer(sql: string, id: number): Row[] {
    if (sql === SERVER_IDENTITY_SQL) return [{ version_text: 'Microsoft SQL Server 2022 (RTM)', server_name: 'SQL1', product_version: '16.0.1000.6', product_major_version: '16', edition: 'Developer', engine_edition: 3, login_name: 'lens', user_name: 'dbo', current_database: 'lab' }];
    if (sql === TARGET_DATABASE_SQL) return [{ database_id: 5, database_name: this.database.name }];
    if (sql === DATABASE_SQL) {
      return [{ database_id: 5, name: this.database.name, state_desc: this.database.state, recovery_model_desc: 'FULL', delayed_durability: 0, delayed_durability_desc: this.setting, is_cdc_enabled: this.database.cdc, is_published: this.database.published, log_reuse_wait_desc: 'NOTHING', group_database_id: this.database.ag ? 'A1' : null }];
    }
    if (sql === CHANGE_TRACKING_SQL) return [{ tracked: 0 }];
    if (sql === PREFLIGHT_SERVER_SQL) {
      return [{ login_name: 'lens', user_name: 'dbo', view_server_state: 1, view_server_performance_state: 1, alter_any_event_session: 1, create_any_event_session: 1, drop_any_event_session: 1, alter_database: 1, view_database_state: 1, view_database_performance_state: 1 }];
    }
    if (sql === READ_DURABILITY_SQL) {
      this.log.push(`read:${this.setting}`);
      return [{ delayed_durability_desc: this.setting }];
    }
    if (sql === GET_APPLOCK_SQL) {
      this.log.push(this.lockHeld ? 'lock-refused' : 'lock');
      return [{ result: this.lockHeld ? -1 : 0 }];
    }
    if (sql === RELEASE_APPLOCK_SQL) {
      this.log.push('unlock');
      return [{ result: 0 }];
    }
    if (sql === LOCK_HOLDER_SQL) {
      return this.lockHeld ? [{ session_id: 77, resource_description: '0:[durability_lens:lab]:(1)', host_name: 'BUILD-7', program_name: 'Durability Lens CLI', host_process_id: 4242, login_name: 'ci', login_time_utc: new Date('2026-01-02T03:04:05Z') }] : [];
    }
    const alter = /^ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = (DISABLED|ALLOWED|FORCED) WITH NO_WAIT;$/.exec(sql);
    if (alter) {
      if (this.alterLocked || this.alterLockedTimes > 0) {
        if (this.alterLockedTimes > 0) this.alterLockedTimes--;
        this.log.push(`alter-refused:${alter[1]}`);
        throw Object.assign(new Error('lock'), { number: 5061, state: 1, class: 16, message: "ALTER DATABASE failed because a lock could not be placed on database 'lab'. Try again later.", lineNumber: 1 });
      }
      this.alters++;
      this.setting = alter[1] as DurabilityMode;
      this.log.push(`alter:${this.setting}`);
      if (this.dropMonitorAfterAlters !== null && this.alters >= this.dropMonitorAfterAlters) {
        // Every connection open so far dies: the next statement on them fails, a new connection works.
        for (let i = 1; i <= this.opens; i++) this.deadConnections.add(i);
        this.dropMonitorAfterAlters = null;
      }
      return [];
    }
    void id;
    return [];
  }

  /** Every connection open so far dies (a KILL, a network cut): the next statement on them fails; new ones work. */
  killOpenConnections(): void {
    for (let i = 1; i <= this.opens; i++) this.deadConnections.add(i);
  }

  source(): ConnectionSource {
    return {
      serverLabel: 'sql1,1433',
      open: async (role) => {
        const id = ++this.opens;
        this.log.push(`open#${id}:${role}`);
        return this.client(id, role);
      },
    };
  }

  /** A journal that writes into the same ordered log. */
  journal(): RestoreJournal & { entries: RestoreEntry[] } {
    const entries: RestoreEntry[] = [];
    const log = this.log;
    return {
      entries,
      list: async () => [...entries],
      put: async (e) => {
        const i = entries.findIndex((x) => x.id === e.id);
        if (i >= 0) entries[i] = e;
        else entries.push(e);
        log.push(`journal-put:${e.originalSetting}`);
      },
      remove: async (id) => {
        const i = entries.findIndex((x) => x.id === id);
        if (i >= 0) entries.splice(i, 1);
        log.push('journal-remove');
      },
    };
  }

  /** Runs batches instantly; `onRun` may fail or cancel the n-th measured batch run. */
  executor(onRun: (n: number, batch: WorkloadBatch) => Partial<BatchReport> | void = () => undefined): WorkloadExecutor {
    let n = 0;
    return {
      run: (_session, batch) => {
        n++;
        this.log.push(`batch:${batch.text.trim().split('\n')[0]}@${this.setting}`);
        const extra = onRun(n, batch) ?? {};
        const report = { elapsedMs: 10, iterationsCompleted: 1, statements: 1, rowsAffected: 1, rowsReturned: 0, resultSets: 0, messageCount: 0, messages: [], error: null, cancelled: false, connectionLost: false, ...extra } as BatchReport;
        return { done: Promise.resolve(report), cancel: () => undefined };
      },
    };
  }
}
