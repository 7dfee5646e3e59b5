// `durability-lens analyze` honours the same suppression comments as the editor (src/tsql/suppressions.ts), in the
// report, the JSON and the SARIF file alike, since all three read analyze()'s findings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import type { CliIO } from '../../../src/cli/io';

function fakeIO(files: Record<string, string>): CliIO & { out: string; err: string } {
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

const LOOP = ['DECLARE @i int = 0;', 'WHILE @i < 10', 'BEGIN', '  INSERT dbo.t VALUES (@i);', '  SET @i += 1;', 'END', 'GO', 'BEGIN TRAN'];

describe('cli analyze with suppression comments', () => {
  it('leaves out a finding suppressed for its line and a code suppressed for the file, and keeps the rest', async () => {
    const plain = fakeIO({ 'a.sql': LOOP.join('\n') });
    assert.equal(await runCli(['analyze', 'a.sql', '--json'], plain), 0);
    assert.deepEqual(JSON.parse(plain.out).diagnostics.map((d: { line: number; code: string }) => [d.line, d.code]), [[4, 'autocommit-dml-in-loop'], [8, 'unbalanced-transaction']]);

    const lines = [...LOOP];
    lines[3] += ' -- durability-lens: ignore autocommit-dml-in-loop -- staging table';
    const line = fakeIO({ 'a.sql': lines.join('\n') });
    assert.equal(await runCli(['analyze', 'a.sql', '--json'], line), 0);
    assert.deepEqual(JSON.parse(line.out).diagnostics.map((d: { line: number; code: string }) => [d.line, d.code]), [[8, 'unbalanced-transaction']]);

    const file = fakeIO({ 'a.sql': ['-- durability-lens: ignore-file unbalanced-transaction', ...LOOP].join('\r\n') });
    assert.equal(await runCli(['analyze', 'a.sql'], file), 0);
    assert.match(file.out, /^a\.sql:5:3: hint autocommit-dml-in-loop$/m);
    assert.doesNotMatch(file.out, /unbalanced-transaction/);
  });

  it('writes no suppressed finding to the SARIF file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-suppress-'));
    try {
      const sarif = path.join(dir, 'out.sarif');
      const io = fakeIO({ 'a.sql': ['-- durability-lens: ignore-file autocommit-dml-in-loop', ...LOOP].join('\n') });
      assert.equal(await runCli(['analyze', 'a.sql', '--sarif', sarif], io), 0);
      const results = JSON.parse(fs.readFileSync(sarif, 'utf8')).runs[0].results as { ruleId: string }[];
      assert.deepEqual(results.map((r) => r.ruleId), ['unbalanced-transaction']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
