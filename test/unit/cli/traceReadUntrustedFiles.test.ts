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

  it('the footer is named with its line; text between rows in CDATA is refused too; whitespace between rows is fine', async () => {
    const row = fs.readFileSync(path.join(__dirname, '../../fixtures/real-server/xelogstash-sql-statement-completed.xml'), 'utf8').trim();
    const footer = run({ 'rows.xml': `${row}\n\n(1 row affected)\n` }, ['rows.xml']);
    assert.equal(await footer.code, 2);
    const line = row.split('\n').length + 2;
    assert.match(footer.err.join(''), new RegExp(`rows\\.xml: text that is not an <event> row at line ${line} \\("\\(1 row affected\\)"\\)`));
    assert.equal(footer.out.join(''), '', 'nothing is printed');
    const between = run({ 'rows.xml': `${row}\n<![CDATA[junk]]>\n${row}\n` }, ['rows.xml']);
    assert.equal(await between.code, 2);
    assert.match(between.err.join(''), /text that is not an <event> row at line \d+ \("junk"\)/);
    const spaced = run({ 'rows.xml': `\r\n\t${row}\r\n\r\n   ${row.replace('<event ', '<event ')}\r\n` }, ['rows.xml', '--json']);
    assert.equal(await spaced.code, 0, spaced.err.join(''));
  });

  it('no file-provided string starts a line of its own: event, module, statement, hash, file names and notes', async () => {
    const nl = '\n  9999 × forged';
    const rows =
      `<event name="rpc_completed${nl}" package="sqlserver" timestamp="2024-01-01T00:00:00.000Z"></event>\n` +
      '<event name="sp_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.001Z">' +
      '<data name="line_number"><value>1</value></data><data name="offset"><value>0</value></data><data name="offset_end"><value>-1</value></data>' +
      `<data name="object_name"><value>p&#x2028;  9999 × forged</value></data>` +
      `<data name="statement"><value><![CDATA[SELECT 1]]></value></data>` +
      `<action name="query_hash" package="sqlserver"><value><![CDATA[0${nl}]]></value></action></event>\n` +
      '<event name="sp_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.002Z">' +
      `<data name="object_name"><value>q&#13;  9999 × forged</value></data><data name="statement"><value>SELECT 2</value></data></event>\n`;
    // A file name may hold a line break too (not on Windows); it is printed in the Files line and in notes.
    const name = process.platform === 'win32' ? 'rows.xml' : `rows${nl}.xml`;
    const r = run({ [name]: rows }, [name]);
    assert.equal(await r.code, 0, r.err.join(''));
    const out = r.out.join('');
    const lines = out.split(/\n|\u2028|\u2029/);
    assert.ok(!lines.some((l) => /^\s*9999 ×/.test(l)), `a forged line:\n${out}`);
    assert.match(out, /rpc_completed\\x0a  9999 × forged: 1/, 'the event name is shown with its line break visible');
    assert.match(out, /hash 0\\x0a  9999 × forged  p\\u2028  9999 × forged line 1  SELECT 1/);
    assert.match(out, /q\\x0d  9999 × forged  SELECT 2/);
    // And a file that is refused: its name in the error stays on one line.
    const bad = run({ [name]: '<nope/>' }, [name]);
    assert.equal(await bad.code, 2);
    assert.ok(!bad.err.join('').split('\n').some((l) => /^\s*9999 ×/.test(l)), bad.err.join(''));
  });

  it('--json stays valid JSON, losslessly, when a statement holds DEL, a C1 control and a bidi override', async () => {
    const text = 'SELECT 1 /* \u007f del \u009b c1 \u202e bidi */';
    const row = '<event name="sql_statement_completed" package="sqlserver" timestamp="2026-01-01T00:00:00.000Z">' +
      `<data name="duration"><value>10</value></data><data name="statement"><value>${text}</value></data>` +
      '<action name="session_id" package="sqlserver"><value>55</value></action><action name="query_hash" package="sqlserver"><value>123</value></action></event>\n';
    const r = run({ 'del.xml': row }, ['del.xml', '--json']);
    assert.equal(await r.code, 0, r.err.join(''));
    const parsed = JSON.parse(r.out.join('')) as unknown;
    assert.ok(JSON.stringify(parsed).includes(JSON.stringify(text).slice(1, -1)), `the statement text is not kept as it was: ${r.out.join('')}`);
  });

  const flush = (inner: string, seq: number) =>
    `<event name="log_flush_complete" package="sqlserver" timestamp="2024-01-01T00:00:00.00${seq}Z">${inner}` +
    `<action name="event_sequence" package="package0"><value>${seq}</value></action></event>\n`;

  it('a log flush with a negative write_size or duration is refused with the file and the event, never summed', async () => {
    for (const [field, value] of [['write_size', '-4096'], ['duration', '-7']] as const) {
      const good = '<data name="database_id"><value>5</value></data><data name="write_size"><value>4096</value></data><data name="duration"><value>3</value></data>';
      const bad = good.replace(new RegExp(`(<data name="${field}"><value>)[^<]+`), `$1${value}`);
      const r = run({ 'flushes.xml': flush(good, 1) + flush(bad, 2) }, ['flushes.xml', '--json']);
      assert.equal(await r.code, 2, r.out.join(''));
      assert.match(r.err.join(''), new RegExp(`flushes\\.xml.*event 2 \\(log_flush_complete\\) has a negative ${field} \\(${value}\\)`));
      assert.equal(r.out.join(''), '', 'no figures are printed from the file');
    }
  });

  it('an <event> nested inside another is refused (rows and a ring buffer), not dropped', async () => {
    const inner = '<data name="database_id"><value>5</value></data><data name="write_size"><value>4096</value></data>';
    const nested = flush(`${inner}${flush(inner, 2)}`, 1);
    const rows = run({ 'nested.xml': flush(inner, 3) + nested }, ['nested.xml']);
    assert.equal(await rows.code, 2, rows.out.join(''));
    assert.match(rows.err.join(''), /nested\.xml.*event 2 \(log_flush_complete\) holds another <event> inside it/);
    const ring = run({ 'ring.xml': `<RingBufferTarget truncated="0" eventCount="2">${nested}</RingBufferTarget>` }, ['ring.xml']);
    assert.equal(await ring.code, 2, ring.out.join(''));
    assert.match(ring.err.join(''), /ring\.xml.*event 1 \(log_flush_complete\) holds another <event> inside it/);
  });
});
