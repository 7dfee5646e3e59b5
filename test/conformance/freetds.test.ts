// FreeTDS (an independent TDS implementation) against the stand-in: `tsql` pipes batches in, and its printed
// output must show the result values, PRINT text and error number. Clear text, TLS required, login-only TLS.
// Skips when FreeTDS is not installed (CI's .ci/run installs freetds-bin; the test installs nothing).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStandin } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';
import type { EncryptionPolicy } from '../standin/tds/prelogin';
import { BATCH, FakeEngine, LOGIN } from './support/fake-engine';

const freetdsAvailable = spawnSync('tsql', ['-C'], { encoding: 'utf8' }).status === 0;

interface TsqlRun {
  stdout: string;
  stderr: string;
  status: number | null;
}

/** Run `tsql -S standin` with a temporary freetds.conf (FREETDSCONF) and the batches on standard input. */
function runTsql(port: number, encryption: 'off' | 'request' | 'require', batches: string[]): Promise<TsqlRun> {
  const dir = mkdtempSync(join(tmpdir(), 'standin-freetds-'));
  const conf = join(dir, 'freetds.conf');
  writeFileSync(conf, `[standin]\n\thost = 127.0.0.1\n\tport = ${port}\n\ttds version = 7.4\n\tencryption = ${encryption}\n`);
  const child = spawn('tsql', ['-S', 'standin', '-U', LOGIN.user, '-P', LOGIN.password, '-D', LOGIN.database], {
    env: { ...process.env, FREETDSCONF: conf, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    timeout: 15_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(batches.map((sql) => `${sql}\ngo\n`).join('') + 'exit\n');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ stdout, stderr, status });
    });
  });
}

/** Like assert.match, but quotes at most 400 characters of tsql's output when it fails. */
function assertShows(output: string, pattern: RegExp): void {
  assert.ok(pattern.test(output), `expected ${pattern} in tsql output:\n${output.slice(0, 400)}`);
}

describe('FreeTDS tsql against the stand-in', function () {
  let engine: FakeEngine;
  let server: StandinServer;
  let log: string[];

  before(function () {
    if (!freetdsAvailable) {
      console.log('    FreeTDS `tsql` not found: install freetds-bin (apt-get install -y freetds-bin) to run these checks');
      this.skip();
    }
  });

  async function start(encryption: EncryptionPolicy): Promise<void> {
    engine = new FakeEngine();
    log = [];
    server = await startStandinServer({ engine, tls: { encryption }, log: (message) => log.push(message) });
  }
  afterEach(async () => {
    await server?.close();
  });

  it('runs batches in clear text: result values, PRINT text and error number arrive', async () => {
    await start('optional');
    const run = await runTsql(server.port, 'off', [BATCH.selectOne, BATCH.print, BATCH.errorAtLine3, BATCH.allTypes]);
    assert.equal(run.status, 0, run.stderr);
    assertShows(run.stdout, /^(?:\d+> )*n\n1\n\(1 row affected\)/m);
    assertShows(run.stderr, /^hello from the stand-in$/m);
    assert.match(run.stderr, /Msg 208 \(severity 16, state 1\) from FAKE Line 3:\s+"Invalid object name 'dbo\.missing'\."/);
    const header = run.stdout.split('\n').findIndex((line) => line.includes('i\tbi\tsi\tti'));
    const cells = run.stdout.split('\n')[header + 1]!.split('\t');
    assert.deepEqual(cells.slice(0, 5), ['-2147483648', '9007199254740993', '-32768', '255', '1']);
    assert.equal(cells[6], '-12345.67');
    assert.equal(cells[7], 'Grüße 👋');
    assert.equal(cells[9], 'x'.repeat(10_000));
    assert.equal(cells[12], '6F9619FF-8B86-D011-B42D-00C04FC964FF');
    assert.equal(cells[13], 'NULL');
    assert.equal(engine.logins[0]!.encrypted, false);
    assert.deepEqual(log, []);
  });

  it('negotiates TLS inside PRELOGIN with encryption = require', async () => {
    await start('optional');
    const run = await runTsql(server.port, 'require', [BATCH.selectOne, BATCH.bigText]);
    assert.equal(run.status, 0, run.stderr);
    assertShows(run.stdout, /^(?:\d+> )*n\n1\n\(1 row affected\)/m);
    assert.ok(run.stdout.includes('ÆØÅ-end'), 'the 120 KB nvarchar(max) arrived whole over TLS');
    assert.equal(engine.logins[0]!.encrypted, true);
    assert.ok(log.some((line) => /^TLS TLSv1\.2 established \(inside PRELOGIN\)$/.test(line)), log.join('\n'));
  });

  it('encrypts only LOGIN7 when the server grants ENCRYPT_OFF to encryption = request', async () => {
    await start('loginOnly');
    const run = await runTsql(server.port, 'request', [BATCH.selectOne, BATCH.print]);
    assert.equal(run.status, 0, run.stderr);
    assertShows(run.stdout, /^(?:\d+> )*n\n1\n\(1 row affected\)/m);
    assertShows(run.stderr, /^hello from the stand-in$/m);
    assert.equal(engine.logins[0]!.password, LOGIN.password);
    assert.equal(engine.logins[0]!.encrypted, false, 'the session itself is clear text');
    assert.ok(log.some((line) => line.startsWith('login-only encryption')), log.join('\n'));
  });
});

describe('FreeTDS tsql against the stand-in model: errors after result sets', function () {
  this.timeout(30_000);
  let server: StandinServer;

  before(async function () {
    if (!freetdsAvailable) {
      console.log('    FreeTDS `tsql` not found: install freetds-bin (apt-get install -y freetds-bin) to run these checks');
      this.skip();
    }
    server = await startStandinServer({ engine: createStandin({ speedFactor: 0 }) });
  });
  after(async () => {
    await server?.close();
  });

  // An error that follows result sets ends its statement with DONE_ERROR (MS-TDS 2.2.7.6); tsql prints both
  // results and then the message, and the next batch still runs.
  it('prints both results, then Msg 50000 for RAISERROR after them, and keeps the session', async () => {
    const run = await runTsql(server.port, 'off', ["SELECT 1 AS a SELECT 2 AS b RAISERROR(N'boom',16,1)", "SELECT N'next' AS n"]);
    assert.equal(run.status, 0, run.stderr);
    assertShows(run.stdout, /^(?:\d+> )*a\n1\n\(1 row affected\)/m);
    assertShows(run.stdout, /^b\n2\n\(1 row affected\)/m);
    assert.match(run.stderr, /Msg 50000 \(severity 16, state 1\) from \S+ Line 1:\s+"boom"/);
    assertShows(run.stdout, /^(?:\d+> )*n\nnext\n/m);
  });

  it('prints 8134 raised after rows were already sent (not a stand-in failure) and runs the rest of the batch', async () => {
    const run = await runTsql(server.port, 'off', ["SELECT 6 / (column_id - 2) AS q FROM sys.all_columns\nPRINT 'after'"]);
    assert.equal(run.status, 0, run.stderr);
    assertShows(run.stdout, /^(?:\d+> )*q\n-6\n/m);
    assert.match(run.stderr, /Msg 8134 \(severity 16, state 1\) from \S+ Line 1:\s+"Divide by zero error encountered\."/);
    assert.doesNotMatch(run.stderr, /stand-in engine failure/);
    assertShows(run.stderr, /^after$/m);
  });

  it('prints 8134 for a divide by zero between two result sets and the batch goes on', async () => {
    const run = await runTsql(server.port, 'off', ['SELECT 1 AS a\nSELECT 1 / 0 AS z\nSELECT 3 AS c']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /Msg 8134 \(severity 16, state 1\) from \S+ Line 2:\s+"Divide by zero error encountered\."/);
    assertShows(run.stdout, /^c\n3\n\(1 row affected\)/m);
  });
});
