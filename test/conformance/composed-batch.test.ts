// The product's composed snapshot batch (src/db/batch.ts: every probe by sp_executesql inside its own TRY...CATCH,
// then a tag row) read by three independent TDS clients against the stand-in's model: tedious (the product's driver),
// python-tds and FreeTDS `tsql` must see the same result sets per probe — the same tags, the same refused probes with
// the same error numbers, the same row counts and columns. A least-privileged login makes some probes fail inside
// the batch, so caught errors travel the same way through every client (no ERROR token reaches any of them).
// The python-tds / FreeTDS parts skip when those clients are not installed (CI's .ci/run installs both).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/db/connect';
import type { QueryParameter, Row } from '../../src/db/types';
import { composeBatch, splitOutcomes, TAG_COLUMN } from '../../src/db/batch';
import { captureServerIdentity, snapshotQueries } from '../../src/probes';
import { createStandin } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';

const LOGIN = { user: 'cb_plain', password: 'Cb-Plain-1' };
const pytdsAvailable = spawnSync('python3', ['-c', 'import pytds'], { encoding: 'utf8' }).status === 0;
const freetdsAvailable = spawnSync('tsql', ['-C'], { encoding: 'utf8' }).status === 0;

/** Per probe: refused with which error, how many rows, which columns (from result sets that had rows). */
interface ProbeSummary {
  probe: number;
  error: number | null;
  rows: number;
  columns: string[];
}

function summarise(sets: Array<{ columns: string[]; rows: number; tag?: { probe: number; error: number | null } }>): ProbeSummary[] {
  const out: ProbeSummary[] = [];
  let rows = 0;
  let columns = new Set<string>();
  for (const set of sets) {
    if (set.tag) {
      out.push({ probe: set.tag.probe, error: set.tag.error, rows, columns: [...columns].sort() });
      rows = 0;
      columns = new Set();
    } else if (set.rows > 0) {
      rows += set.rows;
      for (const c of set.columns) columns.add(c);
    }
  }
  return out;
}

/** The parameters as DECLAREd variables, for clients that send the text as a plain batch (values are test constants). */
function declarations(parameters: readonly QueryParameter[]): string {
  const literal = (v: QueryParameter['value']) => (v === null ? 'NULL' : typeof v === 'string' ? `N'${v.replace(/'/g, "''")}'` : String(v));
  return parameters.map((p) => `DECLARE @${p.name} ${p.type === 'nvarchar' ? 'nvarchar(4000)' : p.type} = ${literal(p.value)};`).join('\n');
}

function run(command: string, args: string[], input: string, env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string; status: number | null }> {
  // Asynchronous on purpose: the stand-in answers from this process's event loop.
  const child = spawn(command, args, { env, timeout: 30_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ stdout, stderr, status }));
  });
}

describe('the composed snapshot batch through tedious, python-tds and FreeTDS', function () {
  this.timeout(40_000);
  let server: StandinServer;
  let sql: string;
  let parameters: QueryParameter[];
  let count: number;
  let viaTedious: ProbeSummary[];

  before(async () => {
    const standin = createStandin({ speedFactor: 0 });
    server = await startStandinServer({ engine: standin });
    standin.addLogin({ name: LOGIN.user, password: LOGIN.password }); // no VIEW SERVER (PERFORMANCE) STATE
    const session = await connect(
      { server: '127.0.0.1', port: server.port, database: 'lab', authentication: { type: 'sql', user: LOGIN.user }, encrypt: false, trustServerCertificate: false },
      LOGIN.password,
      { role: 'monitor' },
    );
    try {
      const identity = await captureServerIdentity(session);
      const [db] = await session.query('SELECT DB_ID() AS id, @@SPID AS spid');
      // A workload spid that is neither this connection's nor the other clients': per-session rows (waits, CPU) then
      // read the same through every client, whichever connection asks.
      const queries = snapshotQueries({ databaseId: Number(db!.id), databaseName: 'lab', workloadSpid: Number(db!.spid) + 1000 }, identity);
      ({ sql, parameters } = composeBatch(queries));
      count = queries.length;
      const rows: Row[] = await session.query(sql, parameters);
      const outcomes = splitOutcomes(rows, count);
      viaTedious = outcomes.map((o, probe) => {
        if (!o) throw new Error(`probe ${probe} has no answer (no snapshot probe depends on another)`);
        if (!o.ok) return { probe, error: o.error.number, rows: 0, columns: [] };
        return { probe, error: null, rows: o.rows.length, columns: [...new Set(o.rows.flatMap((r) => Object.keys(r)))].sort() };
      });
    } finally {
      await session.close();
    }
  });
  after(async () => {
    await server?.close();
  });

  it('tedious: every probe answers, some refused for this login and the rest with rows', () => {
    assert.equal(viaTedious.length, count);
    const refused = viaTedious.filter((p) => p.error !== null);
    assert.ok(refused.length > 0 && refused.every((p) => p.error === 300 || p.error === 297), JSON.stringify(refused));
    assert.ok(viaTedious.some((p) => p.error === null && p.rows > 0));
  });

  it('python-tds sees the same result sets per probe, and raises nothing', async function () {
    if (!pytdsAvailable) this.skip();
    const request = JSON.stringify({ port: server.port, user: LOGIN.user, password: LOGIN.password, database: 'lab', batches: [`${declarations(parameters)}\n${sql}`] });
    const r = await run('python3', [join(__dirname, 'support', 'pytds_client.py')], request);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { batches: Array<{ resultSets: Array<{ columns: string[]; rows: unknown[][] }>; error: unknown }> };
    const batch = report.batches[0]!;
    assert.equal(batch.error, null);
    const sets = batch.resultSets.map((set) => {
      const isTag = set.columns[0] === TAG_COLUMN;
      return { columns: set.columns, rows: set.rows.length, ...(isTag ? { tag: { probe: Number(set.rows[0]![0]), error: set.rows[0]![1] === null ? null : Number(set.rows[0]![1]) } } : {}) };
    });
    assert.deepEqual(summarise(sets), viaTedious);
  });

  it('FreeTDS tsql prints the same result sets per probe, and no error message', async function () {
    if (!freetdsAvailable) this.skip();
    const dir = mkdtempSync(join(tmpdir(), 'composed-freetds-'));
    try {
      const conf = join(dir, 'freetds.conf');
      writeFileSync(conf, `[standin]\n\thost = 127.0.0.1\n\tport = ${server.port}\n\ttds version = 7.4\n\tencryption = off\n`);
      const r = await run('tsql', ['-S', 'standin', '-U', LOGIN.user, '-P', LOGIN.password, '-D', 'lab'], `${declarations(parameters)}\n${sql}\ngo\nexit\n`, {
        ...process.env,
        FREETDSCONF: conf,
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /Msg \d+/);
      // tsql prints each result set as a header line, its rows, then "(n row(s) affected)" — but no such line for an
      // empty result set, whose header then runs into the next set's. Values may span lines (@@VERSION), so rows are
      // counted from the "affected" line, and a tag is found by its header and read from its single row.
      const lines = r.stdout.split('\n').map((l) => l.replace(/^(?:\d+> )+/, ''));
      const sets: Array<{ columns: string[]; rows: number; tag?: { probe: number; error: number | null } }> = [];
      let start = lines.findIndex((l) => l.includes('\t')); // the first header
      for (let i = start; start >= 0 && i < lines.length; i++) {
        const affected = /^\((\d+) rows? affected\)$/.exec(lines[i]!);
        if (!affected) continue;
        const segment = lines.slice(start, i);
        const k = segment.findIndex((l) => l.startsWith(`${TAG_COLUMN}\t`));
        if (k >= 0) {
          // Lines before the tag's header: header-only (empty) result sets, which add no rows.
          const tagRow = segment[k + 1]!.split('\t');
          sets.push({ columns: segment[k]!.split('\t'), rows: 1, tag: { probe: Number(tagRow[0]), error: tagRow[1] === 'NULL' ? null : Number(tagRow[1]) } });
        } else sets.push({ columns: segment[0]!.split('\t'), rows: Number(affected[1]) });
        start = i + 1;
      }
      assert.deepEqual(summarise(sets), viaTedious);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
