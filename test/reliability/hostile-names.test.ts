// Hostile names (quotes, brackets, `]`, `;`, `--`, unicode, 128 characters, HTML) through the real code: the exact
// name reaches the stand-in quoted, the setting changes and is restored on THAT database only, event sessions with
// such names are found and dropped, GRANT texts quote them, and exports show them as text.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { connect } from '../../src/db/connect';
import { quoteName } from '../../src/db/quote';
import { grantFor, type GrantContext, type MeasurementName } from '../../src/probes';
import { alterDurabilitySql, profileConnectionSource } from '../../src/profile';
import { buildComparisonModel, csvCell, markdownText, toCsv, toMarkdown } from '../../src/report';
import { identifierText, lex, TokenKind } from '../../src/tsql';
import { dropOrphanSessions, findOrphanSessions } from '../../src/xe';
import { HOSTILE_CASES } from './cases';
import { atStep, compare, leftBehind, newJournal } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

export const HOSTILE_NAMES = [
  "it's]; DROP DATABASE [lab]; --",
  'x]]y[z',
  '"quoted" name',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  'Ünïcødé 数据库 🚀',
  `=HYPERLINK("http://evil")`,
  '-- not a comment; /* nor this */',
  `${'d'.repeat(126)}]]`, // 128 characters, ending in brackets
];

function settingsOfAll(h: ReliabilityStandin): Record<string, string> {
  const out: Record<string, string> = {};
  for (const db of h.engine.state.databases.values()) out[db.name] = h.setting(db.name);
  return out;
}

describe('reliability: hostile names', function () {
  this.timeout(120000);
  let h: ReliabilityStandin;
  before(async () => {
    h = await startReliabilityStandin();
    for (const name of HOSTILE_NAMES) h.engine.addDatabase({ name });
  });
  after(async () => {
    await h?.close();
  });

  it(HOSTILE_CASES.compare.title, async () => {
    for (const name of HOSTILE_NAMES) {
      assert.equal(name.length <= 128, true);
      const journal = newJournal();
      const before = settingsOfAll(h);
      let during: Record<string, string> | null = null;
      h.clearLog();
      const result = await compare(h, name, journal, { onProgress: atStep('workload', () => (during = settingsOfAll(h))) });
      assert.equal(result.status, 'completed', `${name}: ${result.error?.message}`);
      assert.equal(result.restore!.status, 'restored', result.restore!.message);
      // While FORCED ran, only this database was FORCED; every other database kept its setting.
      assert.deepEqual(during, { ...before, [name]: 'FORCED' });
      assert.deepEqual(settingsOfAll(h), before);
      // The exact statements reached the server: the name quoted QUOTENAME-style, nothing else changed.
      const alters = h.log.filter((r) => /ALTER DATABASE/i.test(r.text)).map((r) => r.text);
      assert.deepEqual(alters, [alterDurabilitySql(name, 'FORCED'), alterDurabilitySql(name, 'DISABLED')]);
      assert.ok(alters.every((a) => a.includes(`[${name.replace(/]/g, ']]')}]`)));
      assert.equal(result.runs[0]!.database?.name, name);
      assert.deepEqual(await journal.list(), []);
      await waitUntil(() => h.server.connections === 0, 'connections closed');
      assert.deepEqual(await leftBehind(h, name), { setting: 'DISABLED', eventSessions: [] });
    }
  });

  it(HOSTILE_CASES.login.title, async () => {
    const login = "o'brien]; DROP LOGIN [sa]; -- <b>é</b>";
    h.engine.addLogin({ name: login, password: 'P@ss;word]', sysadmin: true });
    const result = await compare(h, 'lab', newJournal(), { connections: profileConnectionSource(h.profile('lab', login), 'P@ss;word]') });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.restore!.status, 'restored');
    assert.equal(h.setting('lab'), 'DISABLED');
    const grant = grantFor('fileStats', { majorVersion: 16, engineEdition: 3, loginName: login, userName: login, databaseName: 'lab' })!;
    assert.equal(grant, `USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [o'brien]]; DROP LOGIN [sa]]; -- <b>é</b>];`);
    assert.ok(h.engine.state.logins.has('sa'), 'nothing ran the name as SQL');
    await waitUntil(() => h.server.connections === 0, 'connections closed');
  });

  it(HOSTILE_CASES.xe.title, async () => {
    const name = HOSTILE_NAMES[0]!;
    const dbId = h.engine.state.dbByName(name)!.id;
    let sessionsDuring: { name: string; text: string }[] = [];
    h.clearLog();
    const result = await compare(h, name, newJournal(), {
      onProgress: atStep('workload', () => {
        sessionsDuring = h.leftoverSessions().map((n) => ({ name: n, text: h.log.find((r) => r.text.includes(`CREATE EVENT SESSION [${n}]`))?.text ?? '' }));
      }),
    });
    assert.equal(result.status, 'completed', result.error?.message);
    // The trace session and its latency companion (a session holds one histogram), both limited to the database; a
    // comparison traces no statements (issue 16: it would blur the elapsed times compared).
    assert.equal(sessionsDuring.length, 2);
    for (const d of sessionsDuring) assert.match(d.text, new RegExp(`\\[database_id\\] = \\(${dbId}\\)`));
    assert.deepEqual(h.leftoverSessions(), []);

    // Orphans with hostile names (a crash, or someone else's session) are found by their exact name and dropped.
    const orphanNames = ["durability_lens_it's]; --", 'durability_lens_<script>', 'durability_lens_ünï]]code'];
    const s = await connect(h.profile('master'), h.secret, { role: 'monitor' });
    try {
      for (const n of orphanNames) {
        await s.execute(`CREATE EVENT SESSION ${quoteName(n)} ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
      }
      assert.deepEqual((await findOrphanSessions(s, [])).sort(), [...orphanNames].sort());
      const dropped = await dropOrphanSessions(s, orphanNames);
      assert.deepEqual(dropped.map((d) => [d.name, d.dropped, d.error]), orphanNames.map((n) => [n, true, null]));
      assert.deepEqual(await findOrphanSessions(s, []), []);
    } finally {
      await s.close();
    }
  });

  const escapeRegExp = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it(HOSTILE_CASES.eventFile.title, async () => {
    const dir = "/var/opt/mssql/log/it's]; DROP -- <x> ü/";
    const path = `${dir}trace.xel`;
    h.clearLog();
    const result = await compare(h, 'lab', newJournal(), { xe: { target: { kind: 'event_file', path } } });
    assert.equal(result.status, 'completed', result.error?.message);
    // The DISABLED run flushes once per commit; FORCED may flush not at all. Each run reads only its own file now,
    // so the events come from the DISABLED run's file.
    const disabled = result.runs.find((r) => r.mode === 'DISABLED' && !r.warmup)!;
    assert.ok(disabled.logFlushTrace, JSON.stringify(disabled.missing));
    assert.ok(disabled.logFlushTrace.flushes! > 0, JSON.stringify(disabled.logFlushTrace));
    assert.equal(disabled.logFlushTrace.timeline.counts.reduce((a, b) => a + b, 0), disabled.logFlushTrace.flushes, 'events were read back from the file');
    assert.equal(disabled.logFlushTrace.eventFiles!.files.length, 1);
    // One trace session per run writes a file (the latency companions have no event_file target).
    // CREATE travels inside the composed start request (src/db/batch.ts: sp_executesql N'…' with quotes doubled once more).
    const statements = h.log.flatMap((r) => [r.text, ...[...r.text.matchAll(/EXEC sys\.sp_executesql N'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"))]);
    const create = statements.filter((text) => /^CREATE EVENT SESSION/.test(text) && text.includes('event_file'));
    assert.equal(create.length, 2);
    // Each session writes its own file: the user's path with the session name and '-' before .xel (issue #12, #33 D5).
    for (const text of create) assert.match(text, new RegExp(`filename = N'${escapeRegExp(path.replace(/'/g, "''").replace(/\.xel$/, ''))}_durability_lens_[0-9a-f]{16}(_statements)?-\\.xel'`), text);
    // The stand-in wrote its files under exactly that directory: the literal reached it intact.
    assert.ok([...h.engine.state.xeFiles.keys()].some((k) => k.startsWith(dir)), [...h.engine.state.xeFiles.keys()].join(', '));
    assert.deepEqual(h.leftoverSessions(), []);
  });

  const GRANT_WORDS = new Set(['USE', 'GRANT', 'TO', 'ON', 'DATABASE', 'VIEW', 'SERVER', 'PERFORMANCE', 'STATE', 'ALTER', 'ANY', 'EVENT', 'SESSION']);
  const name = fc.oneof(fc.constantFrom(...HOSTILE_NAMES), fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')));

  /** The GRANT as the lexer sees it: bracketed names, words, semicolons (comments are kept apart by the lexer). */
  function grantShape(grant: string): { idents: string[]; words: string[]; semicolons: number } {
    const stream = lex(grant);
    const out = { idents: [] as string[], words: [] as string[], semicolons: 0 };
    for (let i = 0; i < stream.count; i++) {
      const kind = stream.kinds[i] as TokenKind;
      if (kind === TokenKind.BracketId) out.idents.push(identifierText(stream, i));
      else if (kind === TokenKind.Semicolon) out.semicolons++;
      else if (kind === TokenKind.Word) out.words.push(grant.slice(stream.starts[i]!, stream.ends[i]!).toUpperCase());
    }
    return out;
  }

  function checkGrants(ctx: GrantContext): void {
    for (const m of ['fileStats', 'durabilityToggle', 'extendedEvents', 'vlfs'] as MeasurementName[]) {
      const grant = grantFor(m, ctx);
      if (grant === null) continue;
      const shape = grantShape(grant);
      // Each name stays one bracketed identifier: no statement, keyword or comment escapes from it.
      for (const ident of shape.idents) assert.ok([ctx.databaseName, ctx.loginName, ctx.userName, 'master'].includes(ident), `${JSON.stringify(ident)} in ${grant}`);
      for (const w of shape.words) assert.ok(GRANT_WORDS.has(w), `${w} in ${JSON.stringify(grant)}`);
      assert.equal(shape.semicolons, ctx.engineEdition === 5 ? 1 : 2, grant);
    }
  }

  it('GRANT texts quote hostile login, user and database names (one identifier token each)', () => {
    fc.assert(
      fc.property(name, name, fc.constantFrom(15, 16), fc.constantFrom(3, 5), (databaseName, login, majorVersion, engineEdition) => {
        checkGrants({ majorVersion, engineEdition, loginName: login, userName: login, databaseName });
      }),
      { numRuns: 300 },
    );
  });

  it('the Azure GRANT comment keeps a database name with a line break inside the comment', () => {
    // `-- run while connected to [db]`: a raw newline in the name would end the comment and make the rest of the
    // name T-SQL the DBA runs; the comment shows line breaks escaped (the GRANT keeps the exact quoted name).
    checkGrants({ majorVersion: 12, engineEdition: 5, loginName: 'app', userName: 'app', databaseName: 'x\nDROP TABLE dbo.Orders --' });
    for (const br of ['\r', '\r\n', '\u2028', '\u2029', '\u0085']) {
      checkGrants({ majorVersion: 12, engineEdition: 5, loginName: 'app', userName: 'app', databaseName: `x${br}DROP TABLE dbo.Orders --` });
    }
  });

  it(HOSTILE_CASES.exports.title, async () => {
    const name = HOSTILE_NAMES[0]!;
    const result = await compare(h, name, newJournal());
    assert.equal(result.status, 'completed', result.error?.message);
    const model = buildComparisonModel(result.runs);
    assert.equal(model.database, name);
    const md = toMarkdown({ ...model, notes: [...model.notes, ...HOSTILE_NAMES] });
    // Markdown: the database line keeps the name in a code span; table rows keep their column count.
    assert.ok(md.includes(`Database: \`${name}\``), md.split('\n').find((l) => l.startsWith('Database')));
    // Each table (metrics, statements) keeps its own header's column count.
    const tables = md.split(/\n(?!\| )/).map((block) => block.split('\n').filter((l) => l.startsWith('| '))).filter((rows) => rows.length > 0);
    assert.ok(tables.length >= 1);
    for (const tableRows of tables) {
      const columns = tableRows[0]!.split(/(?<!\\)\|/).length;
      for (const row of tableRows) assert.equal(row.split(/(?<!\\)\|/).length, columns, row);
    }
    // Each name is a list item of escaped text: no raw HTML, link or table syntax survives.
    for (const n of HOSTILE_NAMES) assert.ok(md.includes(`- ${markdownText(n)}\n`), n);
    assert.doesNotMatch(md, /(?<!\\)<(script|img)/, 'raw HTML reached the Markdown');

    // CSV: every cell reads back as the text (formula starters get a leading apostrophe).
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...HOSTILE_NAMES), fc.string({ maxLength: 60 })), (value) => {
        const cell = csvCell(value);
        const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
        assert.equal(unquoted, /^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
        assert.doesNotMatch(unquoted, /^[=+\-@\t\r]/);
        if (!cell.startsWith('"')) assert.doesNotMatch(cell, /[",\r\n]/);
      }),
      { numRuns: 500 },
    );
    const csv = toCsv(model);
    for (const line of csv.trimEnd().split('\r\n')) assert.doesNotMatch(line, /(^|,)[=+@]/, line);
  });
});
