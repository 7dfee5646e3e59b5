// `durability-lens trace read FILE... [--json]` (issue 33): every real-server sample parses; WRITELOG waits land on the
// statement that completes after them in their session; plan-less statements keep their own rows; UTF-16 files read
// like UTF-8 ones; a file that is not XE data, malformed, or binary stops the command with its name and line.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { readTextFile, type CliIO } from '../../../src/cli/io';
import type { OfflineTrace } from '../../../src/xe/offlineTrace';
import { isHistogram, realManifest, REAL_SERVER_DIR } from '../xe/realServerFixtures';

function io(): CliIO & { out: string; err: string } {
  const x = {
    out: '',
    err: '',
    stdout(text: string) { x.out += text; },
    stderr(text: string) { x.err += text; },
    readFile: (file: string, options?: { encoding?: string | null }) => readTextFile(file, options, (t) => (x.err += t)),
  };
  return x;
}

async function traceRead(...args: string[]): Promise<{ code: number; out: string; err: string; json: () => OfflineTrace }> {
  const x = io();
  const code = await runCli(['trace', 'read', ...args], x);
  return { code, out: x.out, err: x.err, json: () => JSON.parse(x.out) as OfflineTrace };
}

/** Event_file rows in the real form (no <type>, strings and map texts in CDATA), one per line. */
function row(name: string, session: number, fields: string, hash?: string): string {
  const pkg = name.startsWith('wait') ? 'sqlos' : 'sqlserver';
  const actions = `<action name="session_id" package="sqlserver"><value>${session}</value></action>` + (hash === undefined ? '' : `<action name="query_hash" package="sqlserver"><value>${hash}</value></action>`);
  return `<event name="${name}" package="${pkg}" timestamp="2025-03-01T10:00:00.000Z">${fields}${actions}</event>`;
}
const writelog = (session: number, ms: number) => row('wait_info', session, `<data name="wait_type"><value>186</value><text><![CDATA[WRITELOG]]></text></data><data name="opcode"><value>1</value><text><![CDATA[End]]></text></data><data name="duration"><value>${ms}</value></data>`);
const statement = (session: number, text: string, line: number, offset: number, hash: string) =>
  row('sql_statement_completed', session, `<data name="line_number"><value>${line}</value></data><data name="offset"><value>${offset}</value></data><data name="offset_end"><value>${offset + 2 * text.length - 2}</value></data><data name="statement"><value><![CDATA[${text}]]></value></data>`, hash);

describe('cli trace read', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-trace-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string | Buffer) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };

  for (const s of realManifest().samples) {
    it(`--json parses the real sample ${s.file}`, async () => {
      const r = await traceRead(path.join(REAL_SERVER_DIR, s.file), '--json');
      assert.equal(r.code, 0, r.err);
      const t = r.json();
      assert.equal(t.files.length, 1);
      if (isHistogram(s)) {
        assert.equal(t.histograms[0]!.buckets, s.expect.histogram!.buckets);
        assert.deepEqual(Object.fromEntries(t.histograms[0]!.slots.map((x) => [x.value, x.count])), s.expect.histogram!.slots);
      } else assert.deepEqual(t.events, s.expect.events);
      // queryHash is a string ("0" for a plan-less statement), null only when the events carry no query_hash action.
      for (const st of t.statements) assert.ok(st.queryHash === null || typeof st.queryHash === 'string');
      if (s.expect.queryHash) assert.deepEqual(t.statements.map((st) => st.queryHash), s.expect.events!.sql_statement_completed || s.expect.events!.sp_statement_completed ? [s.expect.queryHash] : []);
    });
  }

  it('every sample at once: one analysis, events summed, two plan-less statements on their own rows', async () => {
    const all = realManifest().samples.map((s) => path.join(REAL_SERVER_DIR, s.file));
    const r = await traceRead(...all, '--json');
    assert.equal(r.code, 0, r.err);
    const t = r.json();
    assert.equal(t.files.length, all.length);
    assert.equal(t.logFlush.measured, false);
    const planless = t.statements.filter((s) => s.queryHash === '0');
    assert.deepEqual(planless.map((s) => s.statement).sort(), ['EXECUTE ibo_RefreshTransaction', 'exec ibo_Prepaid_AdjustAccountBalance_Wallet @AccountID']);
    assert.deepEqual(planless.find((s) => s.module)!.lines, [152]);
  });

  it('gives each WRITELOG wait to the next statement of its own session; hash 0 rows stay apart, real hashes merge', async () => {
    const rows = [
      writelog(51, 3), writelog(52, 7), statement(51, 'INSERT t VALUES (1)', 2, 40, '4594718534688251656'),
      writelog(51, 2), statement(52, 'COMMIT', 5, 100, '0'),
      statement(51, 'INSERT t VALUES (1)', 2, 40, '4594718534688251656'),
      statement(51, 'COMMIT', 9, 300, '0'), writelog(51, 4),
    ];
    const r = await traceRead(file('rows.xml', rows.join('\n')), '--json');
    assert.equal(r.code, 0, r.err);
    const t = r.json();
    assert.deepEqual(t.events, { sql_statement_completed: 4, wait_info: 4 });
    const insert = t.statements.find((s) => s.queryHash === '4594718534688251656')!;
    assert.deepEqual([insert.executions, insert.writelogWaits, insert.writelogMs, insert.lines], [2, 2, 5, [2]]);
    const commits = t.statements.filter((s) => s.statement === 'COMMIT');
    assert.equal(commits.length, 2, 'two COMMITs at different places are two rows');
    assert.deepEqual(commits.map((c) => [c.lines, c.writelogWaits, c.writelogMs]).sort(), [[[5], 1, 7], [[9], 0, 0]]);
    assert.ok(t.notes.some((n) => /1 WRITELOG waits have no statement/.test(n)), t.notes.join(' | '));
  });

  it('reads UTF-16 files (LE with a BOM, BE without) exactly like UTF-8', async () => {
    const sample = path.join(REAL_SERVER_DIR, 'learn-ring-buffer-lock-acquired.xml');
    const text = fs.readFileSync(sample, 'utf8');
    const le = file('le.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const be = Buffer.from(text, 'utf16le');
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1]!, be[i]!];
    const utf8 = (await traceRead(sample, '--json')).json();
    for (const p of [le, file('be.xml', be), file('bom8.xml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]))]) {
      const r = await traceRead(p, '--json');
      assert.equal(r.code, 0, r.err);
      assert.deepEqual({ ...r.json(), files: [] }, { ...utf8, files: [] });
    }
  });

  it('refuses, naming the file and the line, what is not Extended Events data — and prints no figures', async () => {
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ['other.xml', '<?xml version="1.0"?>\n<!-- saved -->\n<Report><x/></Report>', /other\.xml: not Extended Events data: the first element is <Report> at line 3/],
      ['cut.xml', fs.readFileSync(path.join(REAL_SERVER_DIR, 'learn-ring-buffer-lock-acquired.xml'), 'utf8').slice(0, 900), /cut\.xml: malformed XML: unterminated attribute name at line 25/],
      ['unclosed.xml', fs.readFileSync(path.join(REAL_SERVER_DIR, 'learn-ring-buffer-lock-acquired.xml'), 'utf8').replace('</RingBufferTarget>', ''), /unclosed\.xml: malformed XML: unclosed <RingBufferTarget> at end of input at line 73/],
      ['bad.xml', '<RingBufferTarget>\n<event name="a">\n</data>\n</RingBufferTarget>', /bad\.xml: malformed XML: <\/data> does not close <event> at line 3/],
      ['json.xml', '{"events": []}', /json\.xml: not XML: text before the first element at line 1/],
      ['empty.xml', '  \n ', /empty\.xml: no XML element found/],
      ['file-target.xml', '<EventFileTarget truncated="0"><File name="x.xel" /></EventFileTarget>', /file-target\.xml: holds an event_file target's target_data/],
      ['mixed.xml', `${writelog(1, 1)}\n<row>1</row>`, /mixed\.xml: holds a <row> among its <event> rows/],
      ['trace.xel', Buffer.from([0x4c, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0xff, 0x00, 0x00, 0x13]), /trace\.xel: cannot read it: not a text file .*export its rows/],
      // Counts a server never writes: refused, not skipped (outside attack: they came out as empty slots and counters).
      ['slot.xml', '<HistogramTarget truncated="0" buckets="16"><Slot count="abc"><value>1</value></Slot></HistogramTarget>', /slot\.xml: histogram target_data is malformed \(<Slot> has count "abc", not a whole number ≥ 0\)/],
      ['negative.xml', '<HistogramTarget truncated="0" buckets="16"><Slot count="-1"><value>1</value></Slot></HistogramTarget>', /negative\.xml: histogram target_data is malformed \(<Slot> has count "-1"/],
      ['counter.xml', '<CounterTarget truncated="0"><Packages><Package name="sqlserver"><Event name="x" count="x" /></Package></Packages></CounterTarget>', /counter\.xml: event_counter target_data is malformed \(<Event name="x"> has count "x", not a whole number ≥ 0\)/],
    ];
    for (const [name, content, expected] of cases) {
      const good = path.join(REAL_SERVER_DIR, 'perfmon-wait-info.xml');
      const r = await traceRead(good, file(name, content), '--json');
      assert.equal(r.code, 2, name);
      assert.match(r.err, expected, name);
      assert.equal(r.out, '', `${name}: no partial output`);
    }
    const missing = await traceRead(path.join(dir, 'nope.xml'));
    assert.equal(missing.code, 2);
    assert.match(missing.err, /nope\.xml: cannot read it: ENOENT/);
  });

  it('counts events per name also when a name is a JavaScript object property (constructor, __proto__, toString)', async () => {
    const names = ['constructor', 'constructor', '__proto__', 'toString', 'x'];
    const rows = names.map((n, i) => `<event name="${n}" package="sqlserver" timestamp="2025-03-01T10:00:0${i}.000Z"><action name="session_id" package="sqlserver"><value>${i}</value></action></event>`);
    const r = await traceRead(file('proto.xml', rows.join('\n')), '--json');
    assert.equal(r.code, 0, r.err);
    const t = r.json();
    assert.equal(t.eventCount, 5);
    assert.deepEqual(Object.entries(t.events), [['__proto__', 1], ['constructor', 2], ['toString', 1], ['x', 1]]);
    const text = await traceRead(path.join(dir, 'proto.xml'));
    assert.match(text.out, /Events read: 5\b/);
  });

  it('usage: a subcommand and a file are required; the text report says what was not measured', async () => {
    assert.equal((await traceRead()).code, 2);
    const x = io();
    assert.equal(await runCli(['trace', 'write', 'a.xml'], x), 2);
    assert.match(x.err, /unknown subcommand 'write'/);
    const text = await traceRead(path.join(REAL_SERVER_DIR, 'xelogstash-sp-statement-completed.xml'));
    assert.equal(text.code, 0);
    assert.match(text.out, /Log flushes: not measured — These files hold no log-flush event/);
    // The file holds no wait event: WRITELOG per statement is not measured, never "0 WRITELOG (0 ms)".
    assert.match(text.out, /1 × WRITELOG not measured  hash 0  ibo_Prepaid_AdjustBalances line 152  exec ibo_Prepaid_AdjustAccountBalance_Wallet @AccountID/);
    assert.match(text.out, /WRITELOG per statement is not measured: the files hold no wait event/);
  });
});
