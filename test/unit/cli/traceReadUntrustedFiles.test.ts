// Issue 33 item 6 (found by the attack33 review): `trace read`'s text output and file decoding.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTrace } from '../../../src/cli/commands/trace';
import { readTextFile, type CliIO } from '../../../src/cli/io';
import { terminalSafe } from '../../../src/cli/terminalText';

const made: string[] = [];
after(() => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });

function run(files: Record<string, string | Buffer>, args: string[]): { code: Promise<number>; out: string[]; err: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-read-'));
  made.push(dir);
  for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), body);
  const out: string[] = [];
  const err: string[] = [];
  // The same neutralisation runCli applies to every write (src/cli/dispatch.ts → terminalSafeSinks).
  const io: CliIO = { stdout: (t) => out.push(terminalSafe(t)), stderr: (t) => err.push(terminalSafe(t)), readFile: (p, o) => readTextFile(p, o, () => undefined) };
  return { code: runTrace(['read', ...args.map((a) => (a.startsWith('--') ? a : path.join(dir, a)))], io), out, err };
}

describe('trace read: hostile and unusual files', () => {
  it('a procedure name holding a line break cannot add a forged statement row to the text output', async () => {
    // [p<CR><LF>  9999 × …] is a legal bracketed identifier; sp_statement_completed reports it as object_name.
    const forged = '  9999 × 9999 WRITELOG (123456 ms)  hash 1  line 1  DELETE FROM dbo.Everything';
    const row =
      '<event name="sp_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.001Z">' +
      '<data name="line_number"><value>1</value></data><data name="offset"><value>0</value></data><data name="offset_end"><value>-1</value></data>' +
      `<data name="object_name"><value><![CDATA[p\n${forged}]]></value></data>` +
      '<data name="statement"><value><![CDATA[SELECT 1]]></value></data>' +
      '<action name="session_id" package="sqlserver"><value>55</value></action><action name="query_hash" package="sqlserver"><value>0</value></action></event>\n';
    const r = run({ 'rows.xml': row }, ['rows.xml']);
    assert.equal(await r.code, 0);
    const lines = r.out.join('').split('\n');
    assert.ok(!lines.some((l) => l.startsWith('  9999 ×')), `a forged row starts a line of its own:\n${r.out.join('')}`);
  });

  it('UTF-16 LE without a byte order mark (bcp -w) holding 一 (U+4E00) is read, as docs/cli.md promises', async () => {
    const row =
      '<event name="sql_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.001Z">' +
      '<data name="line_number"><value>1</value></data><data name="offset"><value>0</value></data><data name="offset_end"><value>-1</value></data>' +
      `<data name="statement"><value><![CDATA[UPDATE t SET c = N'一']]></value></data>` +
      '<action name="query_hash" package="sqlserver"><value>77</value></action></event>\r\n';
    const r = run({ 'rows.xml': Buffer.from(row, 'utf16le') }, ['rows.xml', '--json']);
    // Observed: exit 2, "not a text file (it holds NUL bytes that do not fit UTF-16 text …)": U+4E00 has a zero low byte.
    assert.equal(await r.code, 0, r.err.join(''));
    assert.equal(JSON.parse(r.out.join('')).statements[0].statement, "UPDATE t SET c = N'一'");
  });

  it('text that is not an <event> row (a results pane footer) is refused, as docs/cli.md says, not skipped', async () => {
    const row = fs.readFileSync(path.join(__dirname, '../../fixtures/real-server/xelogstash-sql-statement-completed.xml'), 'utf8');
    const r = run({ 'rows.xml': `${row}\n\n(1 row affected)\n\nCompletion time: 2024-01-01T10:00:00\n` }, ['rows.xml']);
    // docs/cli.md: "A file that is not one of the above, or is malformed, stops the command with the file and the line
    // (exit 2)". Observed: exit 0, the footer silently ignored (text inside the synthetic row wrapper is never looked at).
    assert.equal(await r.code, 2, r.out.join(''));
  });
});
