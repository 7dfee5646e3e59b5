// The durability model: log records into a 60 KB log buffer, flushes (on a fully durable commit, a full
// buffer, sp_flush_log, CHECKPOINT), WRITELOG waits, file/perf/XE accounting, log growth and data-page writes.
// Rules follow the reference §5 ("Control Transaction Durability", Paul Randal's 60 KB log block); group commit
// (commits share a flush under concurrency) lives in logWriter.ts.
import { flightOf, logWriterOf } from './logWriter';
import { enterFlushWait, governLogRate, governsLogRate, hardenOnSecondary, hardensOnSecondary, leaveFlushWait, noteLogGenerated, queuedFlushWaitUs } from './commitCauses';
import type { Server } from './server';
import { addWait, type Database, MB, type Session } from './state';
import type { SqlValue } from '../engine';
import { deliver, type XeEvent } from './xe';
import { fireWaitEvents } from './xe-statements';
import { noteLogBytes } from './queryStore';

/**
 * A log block is flushed when it reaches 60 KB (reference §5; Learn, "SQL Server transaction log architecture and
 * management guide", Log blocks: "a maximum size of 60 KB ... the basic unit of I/O for transaction logging").
 */
export const LOG_BLOCK_BYTES = 60 * 1024;
/** Modelled log record sizes (bytes). Modelling choice: roughly fn_dblog-sized records. */
export const RECORD = { begin: 120, commit: 84, abort: 84, rowOverhead: 100, checkpoint: 200 };
const PAGE_BYTES = 8060;
const LOG_GROWTH_BYTES = 64 * MB;

export class SimulationAborted extends Error {}

const LOG_WRITER_EVENTS = new Set(['log_flush_start', 'log_flush_complete', 'flush_file_buffers', 'databases_log_flush']);

export class Durability {
  constructor(private readonly server: Server) {}

  /** Event delivery to every running session that includes the event. */
  fire(name: string, data: Record<string, SqlValue>, session: Session | null, texts?: Record<string, string>): void {
    if (this.server.eventSessions.size === 0) return;
    const ev: XeEvent = { name, timestamp: new Date(), data, sessionId: session?.spid ?? null, statementText: session?.xeStatement ?? null, ...(texts ? { texts } : {}) };
    for (const s of this.server.eventSessions.values()) {
      if (!s.running) continue;
      // Events of a user session without a database_id field belong to the session's database.
      if (s.scope === 'DATABASE' && s.databaseId !== (data['database_id'] ?? session?.db.id)) continue;
      // Log flush events come from the log writer, not a user session: whether a database-scoped session sees them
      // is NOT CONFIRMED (StandinOptions.databaseSessionsSeeLogFlushes).
      if (s.scope === 'DATABASE' && !this.server.options.databaseSessionsSeeLogFlushes && LOG_WRITER_EVENTS.has(name)) continue;
      deliver(s, ev, this.server.xeFiles);
    }
  }

  /** Does any running event session include this event? (Saves building events nobody collects.) */
  wants(name: string): boolean {
    if (this.server.eventSessions.size === 0) return false;
    for (const s of this.server.eventSessions.values()) if (s.running && s.events.some((e) => e.name.toLowerCase() === name)) return true;
    return false;
  }

  /** Appends log records; a block that would pass 60 KB is flushed first (asynchronously: nobody waits). */
  appendLog(db: Database, bytes: number, records: number, session: Session | null): void {
    noteLogGenerated(session, bytes);
    noteLogBytes(session, bytes); // Query Store's log bytes per statement (queryStore.ts)
    if (db.log.bufferBytes > 0 && db.log.bufferBytes + bytes > LOG_BLOCK_BYTES) this.flushBlock(db, session);
    // A single record bigger than a block still goes out in block-sized writes.
    while (bytes > LOG_BLOCK_BYTES) {
      this.account(db, LOG_BLOCK_BYTES, 1);
      this.flushBlock(db, session);
      bytes -= LOG_BLOCK_BYTES;
      records = Math.max(1, records - 1);
    }
    this.account(db, bytes, records);
  }

  private account(db: Database, bytes: number, records: number): void {
    const log = db.log;
    log.bufferBytes += bytes;
    log.bufferRecords += records;
    log.endLsn += bytes;
    log.usedBytes += bytes;
    log.sinceCheckpointBytes += bytes;
    log.sinceBackupBytes += bytes;
    const logFile = db.files.find((f) => f.type === 1)!;
    if (log.usedBytes > logFile.sizePages * 8192 - 8192) this.growLog(db);
  }

  private growLog(db: Database): void {
    const logFile = db.files.find((f) => f.type === 1)!;
    const oldBytes = logFile.sizePages * 8192;
    const n = this.server.vlfsPerGrowth(LOG_GROWTH_BYTES);
    for (let i = 0; i < n; i++) {
      db.log.vlfs.push({ sequence: 0, offset: oldBytes + i * (LOG_GROWTH_BYTES / n), sizeBytes: LOG_GROWTH_BYTES / n, status: 0, createLsn: db.log.endLsn });
    }
    logFile.sizePages += LOG_GROWTH_BYTES / 8192;
    db.counters.logGrowths++;
  }

  /** Writes the current log block to the log file. Returns the simulated write latency in µs (0 if empty). */
  flushBlock(db: Database, session: Session | null): number {
    const log = db.log;
    if (log.bufferBytes === 0) return 0;
    const sector = this.server.options.logSectorBytes;
    const size = Math.ceil(log.bufferBytes / sector) * sector;
    const latencyUs = this.deviceUs(this.server.options.logWriteLatencyMs);
    const logFile = db.files.find((f) => f.type === 1)!;
    const blockId = log.nextBlockId++;
    this.fire('log_flush_start', { database_id: db.id, log_block_id: BigInt(blockId), write_size: size }, session);
    logFile.io.writes++;
    logFile.io.bytesWritten += size;
    logFile.io.stallWriteUs += latencyUs;
    db.counters.logFlushes++;
    db.counters.logBytesFlushed += size;
    db.counters.lastFlushWriteUs = latencyUs;
    log.flushedLsn = log.endLsn;
    log.bufferBytes = 0;
    log.bufferRecords = 0;
    // On Linux the default forced-flush path (reference §6) issues a flush per write unless TF 3979 is on.
    if (this.server.options.platform === 'Linux' && !this.server.options.traceFlags.includes(3979)) {
      this.fire('flush_file_buffers', { database_id: db.id, file_id: logFile.fileId }, session);
    }
    this.fire('log_flush_complete', { database_id: db.id, file_id: logFile.fileId, log_block_id: BigInt(blockId), duration: BigInt(latencyUs), write_size: size }, session);
    this.fire('databases_log_flush', { database_id: db.id, count: 1n }, session);
    return latencyUs;
  }

  /**
   * A device operation's time in µs as the model reports it. With speedFactor > 0 the device runs at that speed
   * (a 0.2 ms write at speedFactor 0.05 takes and reports 10 µs), so WRITELOG and file stalls never exceed the time
   * really waited; with speedFactor 0 (accounting only) the modelled latency itself.
   */
  deviceUs(ms: number): number {
    const f = this.server.options.speedFactor;
    return Math.round(ms * 1000 * (f > 0 ? f : 1));
  }

  /**
   * Flush and make the session wait for it (WRITELOG), as a fully durable commit or sp_flush_log does. With the log
   * writer idle the session's flush goes out at once and it waits one write; while a flush is in flight it joins the
   * group behind it (group commit, logWriter.ts) and waits the rest of the write in flight — counted as half a write,
   * NOT CONFIRMED — plus the group's own write. One session alone never finds a flush in flight.
   */
  async flushAndWait(session: Session, db: Database, signal: AbortSignal): Promise<void> {
    if (db.log.bufferBytes === 0) return;
    this.fire('log_flush_requested', { database_id: db.id, log_block_id: BigInt(db.log.nextBlockId) }, session);
    const writer = logWriterOf(db);
    const writeUs = this.deviceUs(this.server.options.logWriteLatencyMs);
    const realMs = (us: number) => (this.server.options.speedFactor > 0 ? us / 1000 : 0);
    let waitUs: number;
    let done: Promise<void>;
    if (writer.inFlight === null) {
      this.flushBlock(db, session);
      waitUs = writeUs;
      done = flightOf(writer, realMs(writeUs));
    } else {
      // Under a limit on outstanding log writes (commitCauses.ts) the joiner waits its turn in the queue.
      waitUs = queuedFlushWaitUs(this.server, db, writeUs) ?? Math.round(writeUs * 1.5);
      writer.next ??= writer.inFlight.then(() => {
        writer.next = null;
        // The group's one write: everything logged since the last flush, whoever's commit it is.
        this.flushBlock(db, null);
        return flightOf(writer, realMs(writeUs));
      });
      done = writer.next;
    }
    db.counters.logFlushWaits++;
    db.counters.logFlushWaitTimeUs += waitUs;
    this.fire('databases_log_flush_wait', { database_id: db.id, count: 1n }, session);
    const resource = `${db.id}:${db.files.find((f) => f.type === 1)!.fileId}`;
    const started = performance.now();
    session.currentWait = { type: 'WRITELOG', startedAt: started, resource };
    enterFlushWait(db);
    try {
      await untilDone(done, signal);
    } finally {
      leaveFlushWait(db);
      session.currentWait = null;
    }
    // What the flight did not already take in real time is slept (or owed) like any other wait.
    await this.deviceWait(session, 'WRITELOG', waitUs, resource, signal, performance.now() - started);
  }

  /**
   * Records a device wait of `us` (already at device speed, see deviceUs) and really waits what `alreadyMs` of real
   * waiting did not cover. Short remainders are owed (session.waitDebtMs) and slept once worth a timer; settle()
   * carries over between requests, so a session's recorded waits pass its real waiting by less than 2 ms.
   */
  async deviceWait(session: Session, type: string, us: number, resource: string, signal: AbortSignal, alreadyMs = 0): Promise<void> {
    addWait(session.waits, type, us);
    addWait(this.server.waits, type, us);
    fireWaitEvents(this, session, type, us, this.server.options.major);
    if (this.server.options.speedFactor <= 0) return;
    await this.payDebt(session, type, Math.max(0, us / 1000 - alreadyMs), resource, signal);
  }

  /** Records a wait (server-wide and per session) and, when speedFactor > 0, really waits its scaled time (WAITFOR). */
  async wait(session: Session, type: string, us: number, resource: string, signal: AbortSignal): Promise<void> {
    addWait(session.waits, type, us);
    addWait(this.server.waits, type, us);
    fireWaitEvents(this, session, type, us, this.server.options.major);
    const realMs = this.server.realMs(us / 1000);
    if (realMs <= 0) return;
    await this.payDebt(session, type, realMs, resource, signal);
  }

  private async payDebt(session: Session, type: string, addMs: number, resource: string, signal: AbortSignal): Promise<void> {
    session.waitDebtMs += addMs;
    // Timers are ~1 ms granular: accumulate short waits and sleep once the debt is worth a timer.
    if (session.waitDebtMs < 2 && type === 'WRITELOG') return;
    if (session.waitDebtMs <= 0) return;
    session.currentWait = { type, startedAt: performance.now(), resource };
    const started = performance.now();
    try {
      await sleep(session.waitDebtMs, signal);
    } finally {
      session.waitDebtMs = Math.max(0, session.waitDebtMs - (performance.now() - started));
      session.currentWait = null;
    }
  }

  /** Commit of a transaction that wrote log: fully durable unless the database setting and option make it delayed. */
  async commit(session: Session, db: Database, wroteLog: boolean, option: 'ON' | 'OFF' | null, signal: AbortSignal): Promise<void> {
    db.counters.transactions++;
    if (!wroteLog) return;
    db.counters.writeTransactions++;
    this.appendLog(db, RECORD.commit, 1, session);
    // Log-rate governance acts on log generated, delayed commits included (commitCauses.ts). Awaited only when a switch
    // is on: an extra await would change how concurrent commits interleave with the group commit.
    if (governsLogRate(this.server)) await governLogRate(this, this.server, session, db, signal);
    if (this.isDelayed(db, option)) return;
    await this.flushAndWait(session, db, signal);
    if (hardensOnSecondary(this.server, db)) await hardenOnSecondary(this, this.server, session, db, signal);
  }

  /** The table in reference §5; CDC and change tracking databases are always fully durable (modelled per database). */
  isDelayed(db: Database, option: 'ON' | 'OFF' | null): boolean {
    if (db.isCdcEnabled || db.changeTracking) return false;
    // tempdb: NOT CONFIRMED by a Microsoft page; the bobsql log-IO demo saw no flush activity for tempdb commits (§5).
    if (db.name === 'tempdb') return true;
    if (db.delayedDurability === 2) return true;
    if (db.delayedDurability === 1) return option === 'ON';
    return false;
  }

  /** Dirties data pages for `rows` new/changed rows of `rowBytes` each. */
  dirtyRows(db: Database, rows: number, rowBytes: number): void {
    const total = db.pageFillBytes + rows * rowBytes;
    db.dirtyPages += Math.floor(total / PAGE_BYTES) + (db.pageFillBytes === 0 && rows > 0 ? 1 : 0);
    db.pageFillBytes = total % PAGE_BYTES;
  }

  /** CHECKPOINT: harden the log, write dirty pages (grouped 16 pages per write), truncate the log in SIMPLE recovery. */
  async checkpoint(session: Session, db: Database, signal: AbortSignal): Promise<void> {
    this.appendLog(db, RECORD.checkpoint, 2, session);
    await this.flushAndWait(session, db, signal);
    const data = db.files.find((f) => f.type === 0)!;
    if (db.dirtyPages > 0) {
      const writes = Math.ceil(db.dirtyPages / 16);
      const us = this.deviceUs(writes * this.server.options.dataWriteLatencyMs);
      data.io.writes += writes;
      data.io.bytesWritten += db.dirtyPages * 8192;
      data.io.stallWriteUs += us;
      db.dirtyPages = 0;
      db.pageFillBytes = 0;
      await this.deviceWait(session, 'IO_COMPLETION', us, `${db.id}:${data.fileId}`, signal);
    }
    db.log.checkpointLsn = db.log.endLsn;
    db.log.sinceCheckpointBytes = 0;
    if (db.recoveryModel === 'SIMPLE') {
      db.log.usedBytes = db.log.bufferBytes;
      db.counters.logTruncations++;
    }
  }
}

/** Waits for a flush, or rejects at once when the request is cancelled (the flush itself goes on). */
function untilDone(done: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(new SimulationAborted()); return; }
    const onAbort = () => reject(new SimulationAborted());
    signal.addEventListener('abort', onAbort, { once: true });
    done.then(() => { signal.removeEventListener('abort', onAbort); resolve(); }, reject);
  });
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(new SimulationAborted()); return; }
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(new SimulationAborted()); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
