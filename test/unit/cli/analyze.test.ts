// The CLI: `analyze` run as a function with fake IO (JSON values, report, exit codes), and once as a real process.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import type { CliIO } from '../../../src/cli/io';

const root = path.resolve(__dirname, '../../..');
const s1 = path.join(root, 'samples/s1-single-row-inserts.sql');

function fakeIO(files: Record<string, string> = {}): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout(text: string) { io.out += text; },
    stderr(text: string) { io.err += text; },
    readFile(file: string): string {
      if (file in files) return files[file]!;
      return fs.readFileSync(file, 'utf8');
    },
  };
  return io;
}

describe('cli analyze', () => {
  it('prints batches, commits and diagnostics as JSON with 1-based lines and columns', async () => {
    const text = ['SELECT 1', 'GO', '', 'WHILE @i < 3', 'BEGIN', '  BEGIN TRAN', '  INSERT t VALUES (1)',
      '  COMMIT WITH (DELAYED_DURABILITY = ON)', 'END', 'GO 4'].join('\n');
    const io = fakeIO({ 'x.sql': text });
    assert.equal(await runCli(['analyze', 'x.sql', '--json'], io), 0);
    const json = JSON.parse(io.out);
    assert.deepEqual(json.batches, [{ startLine: 1, endLine: 1, repeat: 1, empty: false }, { startLine: 4, endLine: 9, repeat: 4, empty: false }]);
    assert.deepEqual(json.commits, [{ line: 8, column: 3, inLoop: true, delayedDurability: 'ON' }]);
    // A delayed durable COMMIT waits for no flush (unless the database is DISABLED): only the ALLOWED hint (issue 26).
    assert.deepEqual(json.diagnostics.map((d: { line: number; column: number; code: string }) => [d.line, d.column, d.code]), [
      [8, 16, 'delayed-commit-needs-allowed'],
    ]);
    assert.equal(io.err, '');
  });

  it('reports the S1 sample: three batches and the autocommit INSERT in its loop', async () => {
    const io = fakeIO();
    assert.equal(await runCli(['analyze', s1, '--json'], io), 0);
    const json = JSON.parse(io.out);
    assert.equal(json.batches.length, 3);
    assert.deepEqual(json.dml, [{ line: 22, column: 5, kind: 'INSERT', inLoop: true, autocommit: true }]);
    assert.deepEqual(json.diagnostics.map((d: { code: string }) => d.code), ['autocommit-dml-in-loop']);
  });

  it('prints a readable report with file:line:col and the offending source line', async () => {
    const io = fakeIO({ 'loop.sql': 'WHILE 1 = 1\n  DELETE FROM t WHERE a = 1' });
    assert.equal(await runCli(['analyze', 'loop.sql'], io), 0);
    assert.match(io.out, /^loop\.sql: 1 batch, 1 loop, 0 COMMITs, 1 DML statement repeated, 1 diagnostic$/m);
    assert.match(io.out, /^loop\.sql:2:3: hint autocommit-dml-in-loop$/m);
    assert.match(io.out, /^ {2}2 \| {3}DELETE FROM t WHERE a = 1$/m);
    assert.match(io.out, /^ {2} {2}\| {3}\^{25}$/m);
  });

  it('words the delayed-commit hint for the database named on the command line', async () => {
    const io = fakeIO({ 'c.sql': 'BEGIN TRAN\nCOMMIT WITH (DELAYED_DURABILITY = ON)' });
    assert.equal(await runCli(['analyze', 'c.sql', '--json', '--database', 'Sales', '--delayed-durability', 'disabled'], io), 0);
    assert.match(JSON.parse(io.out).diagnostics[0].message, /^Ignored: database Sales is DISABLED/);
  });

  it('exits 2 with a clear message when the file cannot be read', async () => {
    const io = fakeIO();
    assert.equal(await runCli(['analyze', path.join(root, 'no-such-file.sql')], io), 2);
    assert.match(io.err, /cannot read .*no-such-file\.sql: ENOENT/);
    assert.equal(io.out, '');
  });

  it('exits 2 on usage errors: no file, unknown option, unknown command, no command', async () => {
    for (const argv of [['analyze'], ['analyze', 'a.sql', '--fast'], ['analyse', 'a.sql'], [], ['analyze', 'a.sql', '--database', 'x']]) {
      const io = fakeIO();
      assert.equal(await runCli(argv, io), 2, argv.join(' '));
      assert.match(io.err, /Usage: durability-lens/, argv.join(' '));
    }
  });

  it('prints help on --help with exit code 0', async () => {
    const io = fakeIO();
    assert.equal(await runCli(['--help'], io), 0);
    assert.match(io.out, /^ {2}analyze {2}report batches/m);
    const sub = fakeIO();
    assert.equal(await runCli(['analyze', '--help'], sub), 0);
    assert.match(sub.out, /--json/);
  });

  it('strips a byte order mark so line-1 columns match the editor', async () => {
    const io = fakeIO({ 'bom.sql': '\uFEFFBEGIN TRAN' });
    await runCli(['analyze', 'bom.sql', '--json'], io);
    assert.deepEqual(JSON.parse(io.out).diagnostics.map((d: { line: number; column: number }) => [d.line, d.column]), [[1, 1]]);
  });

  it('runs as a process: node --import tsx src/cli/main.ts analyze samples/s1-single-row-inserts.sql', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'analyze', 'samples/s1-single-row-inserts.sql'], {
      cwd: root, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^samples\/s1-single-row-inserts\.sql:22:5: information autocommit-dml-in-loop$/m);
    const missing = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'analyze', 'samples/missing.sql'], {
      cwd: root, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(missing.status, 2);
  });
});
