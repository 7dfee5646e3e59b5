// DBCC CHECKDB and BACKUP DATABASE (scenario S5): they read every data file's pages in steps, moving
// sys.dm_io_virtual_file_stats read counters gradually so a second connection sampling them sees the growth.
import type { Output, SqlValue } from '../engine';
import type { Stmt } from './ast';
import { sleep, SimulationAborted } from './durability';
import { errors, SqlError } from './errors';
import { evaluate } from './eval';
import { type Flow, info, type RunCtx } from './interpreter';
import type { Database, DbFile } from './state';
import { MB } from './state';
import { toNumber, toText } from './values';

type Gen = AsyncGenerator<Output, Flow>;

/** Pages per read: 512 KB reads (modelling choice; backup and read-ahead read large sequential chunks). */
export const PAGES_PER_READ = 64;
const PAGE_BYTES = 8192;
/** Simulated time is slept in steps of at least this many real ms (timers are ~1 ms granular). */
const STEP_REAL_MS = 5;
/** With speedFactor 0 the loop still yields to the event loop every this many read rounds. */
const ROUNDS_PER_YIELD = 32;

export interface ReadOutcome {
  /** Pages read per file id. */
  pages: Map<number, number>;
  /** Simulated elapsed time of the reads in µs. */
  elapsedUs: number;
}

/**
 * Reads `pagesOf(file)` pages of each file: one read per file per round, files on different volumes in
 * parallel (a round takes as long as its slowest volume), files on one volume one after another.
 * Counters move after every read; with speedFactor > 0 the simulated time is really waited, in steps.
 */
export async function readPages(ctx: RunCtx, files: DbFile[], pagesOf: (f: DbFile) => number): Promise<ReadOutcome> {
  const { server } = ctx.b;
  const signal = ctx.exec.signal;
  const remaining = new Map(files.map((f) => [f, Math.max(0, Math.trunc(pagesOf(f)))]));
  const pages = new Map(files.map((f) => [f.fileId, 0]));
  const latencyUs = server.options.dataReadLatencyMs * 1000;
  const usPerByte = 1e6 / (server.options.dataReadMBps * MB);
  let elapsedUs = 0;
  let debtMs = 0;
  let rounds = 0;
  while ([...remaining.values()].some((n) => n > 0)) {
    if (signal.aborted) throw new SimulationAborted();
    const perVolumeUs = new Map<number, number>();
    for (const [f, left] of remaining) {
      if (left <= 0) continue;
      const n = Math.min(PAGES_PER_READ, left);
      const us = latencyUs + n * PAGE_BYTES * usPerByte;
      f.io.reads++;
      f.io.bytesRead += n * PAGE_BYTES;
      f.io.stallReadUs += Math.round(us);
      remaining.set(f, left - n);
      pages.set(f.fileId, pages.get(f.fileId)! + n);
      perVolumeUs.set(f.volume, (perVolumeUs.get(f.volume) ?? 0) + us);
    }
    const roundUs = Math.max(...perVolumeUs.values());
    elapsedUs += roundUs;
    debtMs += server.realMs(roundUs / 1000);
    rounds++;
    if (debtMs >= STEP_REAL_MS) {
      const started = performance.now();
      await sleep(debtMs, signal);
      debtMs = Math.max(0, debtMs - (performance.now() - started));
    } else if (rounds % ROUNDS_PER_YIELD === 0) {
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  if (debtMs > 0) await sleep(debtMs, signal);
  return { pages, elapsedUs: Math.round(elapsedUs) };
}

const dataFiles = (db: Database) => db.files.filter((f) => f.type === 0);
const logFile = (db: Database) => db.files.find((f) => f.type === 1)!;

/** DBCC CHECKDB [(db | db_id | 0)] [WITH ...]: reads every data page; no corruption is ever found. */
export async function* checkdb(args: SqlValue[], withOpts: string[], ctx: RunCtx, line: number): Gen {
  const { server, session } = ctx.b;
  const a = args[0];
  let db: Database | undefined;
  if (a === undefined || a === null || (typeof a === 'number' && a === 0)) db = session.db;
  else if (typeof a === 'number' || typeof a === 'bigint') db = server.databases.get(toNumber(a));
  else db = server.dbByName(toText(a).replace(/^\[|\]$/g, ''));
  // 2520 and its text as remembered from SQL Server (NOT CONFIRMED against a live server; MODEL.md).
  if (!db) throw new SqlError(2520, 16, `Could not find database '${toText(a)}'. The database either does not exist, or was dropped before a statement tried to use it. Verify if the database exists by querying the sys.databases catalog view.`, line);
  if (!server.hasDatabasePermission(session.login, db, 'CONTROL')) throw errors.noPermission(line);
  await readPages(ctx, dataFiles(db), (f) => f.sizePages);
  if (!withOpts.includes('NO_INFOMSGS')) {
    // Summary line modelled on SQL Server's (message 8989; number and text NOT CONFIRMED, MODEL.md).
    yield info(8989, `CHECKDB found 0 allocation errors and 0 consistency errors in database '${db.name}'.`, line);
  }
}

/** BACKUP DATABASE db TO DISK = ... [WITH ...]: checkpoint, read all data pages and the active log, report. */
export async function* backupDatabase(s: Stmt & { k: 'backup' }, ctx: RunCtx): Gen {
  const { server, session } = ctx.b;
  const terminating = () => new SqlError(3013, 16, 'BACKUP DATABASE is terminating abnormally.', s.line);
  const name = typeof s.db === 'string' ? s.db : toText(evaluate(s.db, { batch: ctx.b, scope: null }));
  const db = server.dbByName(name);
  if (!db) { const e = errors.dbNotExist(name, s.line); e.followUps.push(terminating()); throw e; }
  if (db.name.toLowerCase() === 'tempdb') throw new SqlError(3147, 16, 'Backup and restore operations are not allowed on database tempdb.', s.line, 1, [terminating()]);
  if (!server.hasDatabasePermission(session.login, db, 'CONTROL') && !server.hasDatabasePermission(session.login, db, 'BACKUP DATABASE')) {
    throw new SqlError(262, 14, `BACKUP DATABASE permission denied in database '${db.name}'.`, s.line, 1, [terminating()]);
  }
  for (const d of s.disks) toText(evaluate(d, { batch: ctx.b, scope: null })); // the target is accepted, never written
  // A full backup starts with a checkpoint: that hardens the log (S3's note: a full backup triggered log flushes).
  await ctx.interp.durability.checkpoint(session, db, ctx.exec.signal);
  const data = await readPages(ctx, dataFiles(db), (f) => f.sizePages);
  // Active log in the backup: what open transactions in this database wrote, at least 2 pages (modelling choice).
  let openLogBytes = 0;
  for (const other of server.sessions.values()) if (other.tran && other.tran.db === db) openLogBytes += other.tran.logBytes;
  const log = logFile(db);
  const logRead = await readPages(ctx, [log], () => 2 + Math.ceil(openLogBytes / PAGE_BYTES));
  // Texts modelled on SQL Server's 4035 / 3014 messages as seen in public job logs (not confirmed by a Microsoft page).
  for (const f of dataFiles(db)) yield info(4035, `Processed ${data.pages.get(f.fileId)} pages for database '${db.name}', file '${f.name}' on file 1.`, s.line);
  yield info(4035, `Processed ${logRead.pages.get(log.fileId)} pages for database '${db.name}', file '${log.name}' on file 1.`, s.line);
  const total = [...data.pages.values()].reduce((x, y) => x + y, 0) + logRead.pages.get(log.fileId)!;
  const seconds = Math.max(0.001, (data.elapsedUs + logRead.elapsedUs) / 1e6);
  const mbps = (total * PAGE_BYTES) / MB / seconds;
  yield info(3014, `BACKUP DATABASE successfully processed ${total} pages in ${seconds.toFixed(3)} seconds (${mbps.toFixed(3)} MB/sec).`, s.line);
}
