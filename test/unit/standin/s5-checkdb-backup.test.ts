// S5 in the model: DBCC CHECKDB and BACKUP DATABASE read every data page (the read counters move by the data size,
// gradually while the command runs), print their messages, and stop on cancel.
import assert from 'node:assert/strict';
import type { SessionHandle } from '../../standin/engine';
import { createStandin, type Standin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

interface FileReads { fileId: number; reads: number; bytesRead: number; stallMs: number }

async function fileReads(s: Standin, monitor: SessionHandle, db: string): Promise<FileReads[]> {
  const r = await rows(s, monitor, `SELECT file_id, num_of_reads, num_of_bytes_read, io_stall_read_ms FROM sys.dm_io_virtual_file_stats(DB_ID(N'${db}'), NULL) ORDER BY file_id`);
  return r.map((x) => ({ fileId: Number(x.file_id), reads: Number(x.num_of_reads), bytesRead: Number(x.num_of_bytes_read), stallMs: Number(x.io_stall_read_ms) }));
}

function dataBytes(s: Standin, db: string): Map<number, number> {
  const d = s.state.dbByName(db)!;
  return new Map(d.files.filter((f) => f.type === 0).map((f) => [f.fileId, f.sizePages * 8192]));
}

function readDelta(before: FileReads[], after: FileReads[]): Map<number, number> {
  return new Map(after.map((a) => [a.fileId, a.bytesRead - (before.find((b) => b.fileId === a.fileId)?.bytesRead ?? 0)]));
}

describe('stand-in model: S5 CHECKDB and BACKUP read throughput', () => {
  it('adds a database with several data files, each on its own volume', async () => {
    const s = createStandin({ speedFactor: 0, platform: 'Windows' });
    s.addDatabase({ name: 'big', dataFiles: 4, sizeMb: 2 });
    const m = await connect(s);
    const files = await rows(s, m, `SELECT f.file_id, f.type, f.physical_name, v.volume_mount_point FROM sys.master_files AS f
CROSS APPLY sys.dm_os_volume_stats(f.database_id, f.file_id) AS v WHERE f.database_id = DB_ID(N'big') ORDER BY f.file_id`);
    assert.deepEqual(files.map((f) => [f.file_id, f.type]), [[1, 0], [2, 1], [3, 0], [4, 0], [5, 0]]);
    const dataVolumes = files.filter((f) => f.type === 0).map((f) => f.volume_mount_point);
    assert.equal(new Set(dataVolumes).size, 4, `volumes ${dataVolumes.join(',')}`);
    assert.ok(String(files[2]!.physical_name).endsWith('.ndf'));
    assert.deepEqual([...dataBytes(s, 'big').values()], [2, 2, 2, 2].map((mb) => mb * 1024 * 1024));
  });

  it('DBCC CHECKDB WITH PHYSICAL_ONLY reads every data page once and prints its summary', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.addDatabase({ name: 'big', dataFiles: 3, sizeMb: 4 });
    const m = await connect(s, { database: 'big' });
    const before = await fileReads(s, m, 'big');
    const r = await exec(s, m, 'DBCC CHECKDB WITH PHYSICAL_ONLY');
    assert.deepEqual(r.errors, []);
    const after = await fileReads(s, m, 'big');
    const delta = readDelta(before, after);
    for (const [fileId, bytes] of dataBytes(s, 'big')) assert.equal(delta.get(fileId), bytes, `file ${fileId}`);
    assert.equal(delta.get(2), 0, 'CHECKDB does not read the log');
    // 4 MB in 512 KB reads: 8 reads per data file; each read stalls latency + transfer time.
    assert.equal(after.find((f) => f.fileId === 1)!.reads - before.find((f) => f.fileId === 1)!.reads, 8);
    assert.ok(after.find((f) => f.fileId === 1)!.stallMs > before.find((f) => f.fileId === 1)!.stallMs);
    assert.deepEqual(r.infos.map((i) => i.number), [8989, 2528]);
    assert.equal(r.infos[0]!.message, "CHECKDB found 0 allocation errors and 0 consistency errors in database 'big'.");
  });

  it('DBCC CHECKDB (N\'db\') / (db_id) WITH NO_INFOMSGS is silent; an unknown database is error 2520', async () => {
    const s = createStandin({ speedFactor: 0 });
    const m = await connect(s, { database: 'master' });
    const before = await fileReads(s, m, 'lab');
    const byName = await exec(s, m, "DBCC CHECKDB (N'lab') WITH NO_INFOMSGS, PHYSICAL_ONLY");
    assert.deepEqual([byName.errors, byName.infos], [[], []]);
    const byId = await exec(s, m, "DBCC CHECKDB (5) WITH MAXDOP = 2");
    assert.deepEqual(byId.errors, []);
    assert.equal(byId.infos[0]!.message, "CHECKDB found 0 allocation errors and 0 consistency errors in database 'lab'.");
    const delta = readDelta(before, await fileReads(s, m, 'lab'));
    assert.equal(delta.get(1), 2 * dataBytes(s, 'lab').get(1)!);
    const missing = await exec(s, m, "DBCC CHECKDB (N'nope')");
    assert.deepEqual(missing.errors.map((e) => e.number), [2520]);
  });

  it('BACKUP DATABASE ... TO DISK = N\'NUL\' WITH COPY_ONLY reads all data pages and the log, checkpoints, and reports', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.addDatabase({ name: 'big', dataFiles: 2, sizeMb: 3 });
    const m = await connect(s, { database: 'big' });
    await exec(s, m, 'CREATE TABLE dbo.t (id int); INSERT INTO dbo.t VALUES (1);');
    await exec(s, m, 'BEGIN TRAN; INSERT INTO dbo.t VALUES (2);'); // an open transaction: its log is in the backup, and unflushed
    const flushesBefore = s.state.dbByName('big')!.counters.logFlushes;
    const before = await fileReads(s, m, 'big');
    const w = await connect(s, { database: 'big' });
    const r = await exec(s, w, "BACKUP DATABASE [big] TO DISK = N'NUL' WITH COPY_ONLY, STATS = 10");
    assert.deepEqual(r.errors, []);
    const delta = readDelta(before, await fileReads(s, w, 'big'));
    const data = dataBytes(s, 'big');
    for (const [fileId, bytes] of data) assert.equal(delta.get(fileId), bytes, `file ${fileId}`);
    const logPages = delta.get(2)! / 8192;
    assert.ok(logPages >= 2, `log pages ${logPages}`);
    assert.ok(s.state.dbByName('big')!.counters.logFlushes > flushesBefore, 'the checkpoint flushed the open transaction\'s log');
    const pages = [...data.values()].map((b) => b / 8192);
    assert.deepEqual(r.infos.map((i) => i.message.replace(/ in [\d.]+ seconds \([\d.]+ MB\/sec\)/, ' in T')), [
      `Processed ${pages[0]} pages for database 'big', file 'big' on file 1.`,
      `Processed ${pages[1]} pages for database 'big', file 'big_2' on file 1.`,
      `Processed ${logPages} pages for database 'big', file 'big_log' on file 1.`,
      `BACKUP DATABASE successfully processed ${pages[0]! + pages[1]! + logPages} pages in T.`,
    ]);
    assert.deepEqual(r.infos.map((i) => i.number), [4035, 4035, 4035, 3014]);
    // Seconds and MB/sec agree with the model's read pacing (200 MB/s + 0.2 ms per read by default).
    const [, secs, mbps] = /in ([\d.]+) seconds \(([\d.]+) MB\/sec\)/.exec(r.infos[3]!.message)!;
    const totalMb = ((pages[0]! + pages[1]! + logPages) * 8192) / (1024 * 1024);
    // (seconds are printed to 3 decimals, MB/sec is computed from the unrounded time)
    assert.ok(Math.abs(totalMb / Number(mbps) - Number(secs)) <= 0.0006, `${totalMb} MB / ${mbps} MB/sec vs ${secs} s`);
    // Two data files on two volumes read in parallel: above one volume's 200 MB/s, below two volumes'.
    assert.ok(Number(mbps) > 200 && Number(mbps) < 400, `${mbps} MB/sec`);
  });

  it('BACKUP errors: unknown database 911 + 3013, tempdb 3147 + 3013', async () => {
    const s = createStandin({ speedFactor: 0 });
    const m = await connect(s);
    const missing = await exec(s, m, "BACKUP DATABASE nope TO DISK = N'NUL'");
    assert.deepEqual(missing.errors.map((e) => e.number), [911, 3013]);
    const temp = await exec(s, m, "BACKUP DATABASE tempdb TO DISK = N'NUL'");
    assert.deepEqual(temp.errors.map((e) => e.number), [3147, 3013]);
  });

  it('with speedFactor > 0 the counters grow while the command runs, seen from a second connection', async () => {
    const s = createStandin({ speedFactor: 1 });
    s.addDatabase({ name: 'big', dataFiles: 2, sizeMb: 16 }); // 2 x 32 reads of ~2.7 ms: ~90 ms of reading
    const work = await connect(s, { database: 'big' });
    const monitor = await connect(s, { database: 'big' });
    const before = await fileReads(s, monitor, 'big');
    let finished = false;
    const running = exec(s, work, 'DBCC CHECKDB WITH PHYSICAL_ONLY').then((r) => { finished = true; return r; });
    const seen: number[] = [];
    const deadline = Date.now() + 10000;
    while (!finished && Date.now() < deadline) {
      const now = await fileReads(s, monitor, 'big');
      seen.push(now.find((f) => f.fileId === 1)!.bytesRead - before.find((f) => f.fileId === 1)!.bytesRead);
      await new Promise<void>((r) => setImmediate(r));
    }
    const r = await running;
    assert.deepEqual(r.errors, []);
    const total = dataBytes(s, 'big').get(1)!;
    const partial = new Set(seen.filter((b) => b > 0 && b < total));
    assert.ok(partial.size >= 2, `intermediate readings ${[...partial].join(', ')}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'counters never go back');
  });

  it('cancel (ATTENTION) stops a BACKUP part-way: no completion message, fewer bytes read than the data size', async () => {
    const s = createStandin({ speedFactor: 1 });
    s.addDatabase({ name: 'big', sizeMb: 64 }); // 128 reads of ~2.7 ms
    const work = await connect(s, { database: 'big' });
    const monitor = await connect(s, { database: 'big' });
    const controller = new AbortController();
    const running = exec(s, work, "BACKUP DATABASE big TO DISK = N'NUL' WITH COPY_ONLY", { signal: controller.signal });
    const deadline = Date.now() + 10000;
    while ((await fileReads(s, monitor, 'big'))[0]!.bytesRead === 0 && Date.now() < deadline) await new Promise<void>((r) => setImmediate(r));
    controller.abort();
    const r = await running;
    assert.deepEqual(r.infos.filter((i) => i.number === 3014), []);
    const afterCancel = (await fileReads(s, monitor, 'big'))[0]!.bytesRead;
    assert.ok(afterCancel > 0 && afterCancel < dataBytes(s, 'big').get(1)!, `read ${afterCancel}`);
    // Nothing keeps reading after the cancel.
    await new Promise<void>((r) => setImmediate(r));
    assert.equal((await fileReads(s, monitor, 'big'))[0]!.bytesRead, afterCancel);
    assert.equal(s.session(work.spid)!.request, null);
  });
});
