// The language server as VS Code sees it: spawned over stdio, driven with LSP messages, answers checked
// at exact positions. Expected ranges come from the test texts themselves.
import * as assert from 'node:assert/strict';
import { TextDocumentSyncKind, type CodeLens, type Diagnostic, type MarkupContent } from 'vscode-languageserver-protocol';
import { Commands, type ProfileTarget } from '../../src/shared/commands';
import { isProcedureTarget, type ProcedureTarget } from '../../src/shared/procedureTarget';
import { LspTestClient } from './support/lspClient';
import { inside, positionAt, rangeOf } from './support/text';

const LOOP = [
  'SET NOCOUNT ON;',
  'DECLARE @i int = 0;',
  'WHILE @i < 1000',
  'BEGIN',
  '    INSERT INTO dbo.t DEFAULT VALUES;',
  '    SET @i += 1;',
  'END;',
  '',
].join('\n');

const TRANSACTION = [
  'BEGIN TRANSACTION;',
  '    UPDATE dbo.t SET col1 = 1 WHERE id = 1;',
  'COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);',
  'GO',
  'EXEC sys.sp_flush_log;',
  'ALTER DATABASE [Sales] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;',
  '',
].join('\n');

const summary = (d: Diagnostic) => ({ code: d.code, range: d.range, severity: d.severity, source: d.source });
const lensSummary = (l: CodeLens) => ({ title: l.command!.title, command: l.command!.command, range: l.range });
const markdown = (hover: { contents: unknown } | null): string => {
  assert.ok(hover, 'expected a hover');
  const contents = hover.contents as MarkupContent;
  assert.equal(contents.kind, 'markdown');
  return contents.value;
};

describe('language server over stdio', function () {
  let client: LspTestClient;
  let capabilities: Awaited<ReturnType<typeof LspTestClient.start>>['initialize']['capabilities'];

  before(async () => {
    const started = await LspTestClient.start();
    client = started.client;
    capabilities = started.initialize.capabilities;
  });

  after(async () => {
    await client?.stop();
  });

  it('declares incremental sync, code lenses and hovers', () => {
    assert.deepEqual(capabilities.textDocumentSync, { openClose: true, change: TextDocumentSyncKind.Incremental });
    assert.deepEqual(capabilities.codeLensProvider, { resolveProvider: false });
    assert.equal(capabilities.hoverProvider, true);
  });

  it('publishes autocommit-dml-in-loop on the INSERT inside the loop, with source, code and doc link', async () => {
    const uri = 'file:///work/loop.sql';
    await client.open(uri, LOOP);
    const published = await client.diagnosticsOfVersion(uri, 1);
    assert.deepEqual(published.diagnostics.map(summary), [
      // Information since round 5 measured its held-out precision at or above 90 % (src/tsql/diagnose.ts SURE, docs/analyze.md).
      { code: 'autocommit-dml-in-loop', range: rangeOf(LOOP, 'INSERT INTO dbo.t DEFAULT VALUES;'), severity: 3, source: 'Durability Lens' },
    ]);
    assert.equal(
      published.diagnostics[0]!.codeDescription?.href,
      'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
    );
    assert.match(String(published.diagnostics[0]!.message), /\S/);
  });

  it('puts "Profile batch" on the WHILE of a batch with DML in a loop, carrying the batch', async () => {
    const uri = 'file:///work/loop.sql';
    const lenses = await client.codeLenses(uri);
    const at = positionAt(LOOP, LOOP.indexOf('WHILE'));
    assert.deepEqual(lenses.map(lensSummary), [{ title: 'Profile batch', command: Commands.profileBatch, range: { start: at, end: at } }]);
    const target = lenses[0]!.command!.arguments![0] as ProfileTarget;
    assert.deepEqual([target.uri, target.version, target.batchIndex, target.repeat, target.commit], [uri, 1, 0, 1, null]);
    assert.deepEqual(target.batchRange.start, { line: 0, character: 0 });
  });

  it('a parameterless procedure gets its body analysed (the diagnostic on the INSERT), but no lens in it runs its batch: the loop offers EXEC, COMMITs get none', async () => {
    const uri = 'file:///work/proc.sql';
    const text = [
      'CREATE PROCEDURE dbo.load_rows AS',
      'BEGIN',
      '  DECLARE @i int = 0;',
      '  WHILE @i < 100',
      '  BEGIN',
      '    INSERT INTO dbo.t DEFAULT VALUES;',
      '    SET @i += 1;',
      '  END;',
      '  BEGIN TRAN;',
      '  UPDATE dbo.t SET v = 1;',
      '  COMMIT;',
      'END;',
      '',
    ].join('\n');
    const after = client.published.length;
    await client.open(uri, text);
    const published = await client.diagnosticsOfVersion(uri, 1, after);
    assert.deepEqual(published.diagnostics.map((d) => [d.code, d.range]), [['autocommit-dml-in-loop', rangeOf(text, 'INSERT INTO dbo.t DEFAULT VALUES;')]]);
    const lenses = await client.codeLenses(uri);
    const loopAt = positionAt(text, text.indexOf('WHILE'));
    const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    // Running this batch would run CREATE PROCEDURE (a redeploy) and measure the DDL: the loop's lens calls the procedure.
    assert.deepEqual(lenses.map(lensSummary), [
      { title: 'Profile this loop via EXEC dbo.load_rows', command: Commands.profileProcedure, range: { start: loopAt, end: loopAt } },
      { title: 'Profile EXEC dbo.load_rows', command: Commands.profileProcedure, range: top },
      { title: 'Compare durability', command: Commands.compareProcedure, range: top },
    ]);
    assert.ok(!lenses.some((l) => l.command!.command === Commands.profileBatch || l.command!.command === Commands.profileTransaction || l.command!.command === Commands.compareDurability));
    const viaLoop = lenses[0]!.command!.arguments![0] as ProcedureTarget;
    const target = lenses[1]!.command!.arguments![0] as ProcedureTarget;
    assert.ok(isProcedureTarget(target) && isProcedureTarget(viaLoop));
    assert.deepEqual(viaLoop, target);
    assert.deepEqual([target.name, target.nameParts, target.parameters, target.notPromptable], ['dbo.load_rows', ['dbo', 'load_rows'], [], null]);
  });

  it('puts Profile EXEC… and Compare durability… on a parameterised procedure, carrying its parameters, defaults and range', async () => {
    const uri = 'file:///work/proc-params.sql';
    const text = [
      'SET NOCOUNT ON;',
      'GO',
      "CREATE OR ALTER PROCEDURE [dbo].[load rows] @rows int = 10, @note nvarchar(20) = N'it''s', @amount decimal(9,2) = -1.5, @tvp dbo.Rows READONLY",
      'AS',
      'INSERT dbo.t (v) VALUES (@rows);',
      'GO',
      '',
    ].join('\n');
    await client.open(uri, text);
    const lenses = (await client.codeLenses(uri)).filter((l) => l.command!.command === Commands.profileProcedure || l.command!.command === Commands.compareProcedure);
    const at = { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } };
    assert.deepEqual(lenses.map(lensSummary), [
      { title: 'Profile EXEC dbo.load rows…', command: Commands.profileProcedure, range: at },
      { title: 'Compare durability…', command: Commands.compareProcedure, range: at },
    ]);
    const target = lenses[1]!.command!.arguments![0] as ProcedureTarget;
    assert.ok(isProcedureTarget(target));
    assert.deepEqual(target.nameParts, ['dbo', 'load rows']);
    assert.deepEqual(target.parameters.map((p) => [p.name, p.type.text, p.default?.value ?? null, p.notPromptable === null]), [
      ['@rows', 'int', '10', true], ['@note', 'nvarchar(20)', "it's", true], ['@amount', 'decimal(9,2)', '-1.5', true], ['@tvp', 'dbo.Rows', null, false],
    ]);
    assert.match(target.notPromptable!, /@tvp: table-valued/);
    assert.deepEqual([target.batchIndex, target.range.start.line, target.range.end.line], [1, 2, 4]);
  });

  it('follows incremental changes: wrapping the loop in a transaction moves findings and adds COMMIT lenses', async () => {
    const uri = 'file:///work/loop.sql';
    const after = client.published.length;
    // Two edits in one change event: VS Code sends them in order, each against the text the previous one produced.
    const end = positionAt(LOOP, LOOP.length);
    await client.change(uri, 2, [
      { range: { start: end, end }, text: 'COMMIT;\n' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'BEGIN TRAN;\n' },
    ]);
    const text = `BEGIN TRAN;\n${LOOP}COMMIT;\n`;
    const published = await client.diagnosticsOfVersion(uri, 2, after);
    assert.deepEqual(published.diagnostics.map((d) => d.code), []);

    const lenses = await client.codeLenses(uri);
    const commit = rangeOf(text, 'COMMIT');
    const loopAt = positionAt(text, text.indexOf('WHILE'));
    assert.deepEqual(lenses.map(lensSummary), [
      { title: 'Profile transaction', command: Commands.profileTransaction, range: commit },
      { title: 'Compare durability', command: Commands.compareDurability, range: commit },
      { title: 'Profile batch', command: Commands.profileBatch, range: { start: loopAt, end: loopAt } },
    ]);
    const target = lenses[0]!.command!.arguments![0] as ProfileTarget;
    assert.equal(target.version, 2);
    assert.deepEqual(target.commit?.position, commit.start);
    assert.deepEqual(target.commit?.transactionRange, { start: { line: 0, character: 0 }, end: rangeOf(text, 'COMMIT;').end });
  });

  it('lenses reflect the latest version at once, even while diagnostics are still debounced', async () => {
    const uri = 'file:///work/loop.sql';
    // Delete the BEGIN TRAN line: the COMMIT lenses stay (COMMIT is still there), the loop is autocommit again.
    await client.change(uri, 3, [{ range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, text: '' }]);
    const lenses = await client.codeLenses(uri);
    const text = `${LOOP}COMMIT;\n`;
    assert.deepEqual(
      lenses.map((l) => [l.command!.title, l.range.start.line]),
      [
        ['Profile transaction', rangeOf(text, 'COMMIT').start.line],
        ['Compare durability', rangeOf(text, 'COMMIT').start.line],
        ['Profile batch', positionAt(text, text.indexOf('WHILE')).line],
      ],
    );
    assert.equal((lenses[0]!.command!.arguments![0] as ProfileTarget).version, 3);
  });

  it('a batch repeated with GO n gets "Profile batch (GO n)" on its first statement, not on the blank line after GO', async () => {
    const uri = 'file:///work/go.sql';
    const text = ['CREATE TABLE dbo.t (id int IDENTITY, col1 int DEFAULT 100);', 'GO', '', '-- one row per execution', 'INSERT INTO dbo.t DEFAULT VALUES;', 'GO 3', ''].join('\n');
    await client.open(uri, text);
    const lenses = await client.codeLenses(uri);
    const at = rangeOf(text, 'INSERT').start;
    assert.deepEqual(lenses.map(lensSummary), [{ title: 'Profile batch (GO 3)', command: Commands.profileBatch, range: { start: at, end: at } }]);
    const target = lenses[0]!.command!.arguments![0] as ProfileTarget;
    assert.deepEqual([target.batchIndex, target.repeat], [1, 3]);
    await client.close(uri);
  });

  it('a COMMIT WITH (DELAYED_DURABILITY = ON) names the connected database setting once the client reports it', async () => {
    const uri = 'untitled:Untitled-1';
    await client.open(uri, TRANSACTION);
    const initial = await client.diagnosticsOfVersion(uri, 1);
    const delayed = (p: { diagnostics: Diagnostic[] }) => p.diagnostics.find((d) => d.code === 'delayed-commit-needs-allowed');
    const before = delayed(initial);
    assert.ok(before, 'delayed-commit-needs-allowed without a connection');
    assert.deepEqual(before.range, rangeOf(TRANSACTION, 'DELAYED_DURABILITY = ON'));
    assert.equal(before.severity, 4); // hint

    let after = client.published.length;
    await client.setDatabase({ database: 'Sales', delayedDurability: 'DISABLED' });
    const connected = await client.waitForDiagnostics(uri, (p) => delayed(p)?.message !== before.message, 10_000, after);
    const message = String(delayed(connected)!.message);
    assert.match(message, /Sales/);
    assert.match(message, /DISABLED/);

    after = client.published.length;
    await client.setDatabase(null);
    const disconnected = await client.waitForDiagnostics(uri, (p) => delayed(p)?.message === before.message, 10_000, after);
    assert.equal(disconnected.version, 1);
  });

  it('hovers explain DELAYED_DURABILITY, its values, sys.sp_flush_log and the COMMIT', async () => {
    const uri = 'untitled:Untitled-1';
    const commitOption = markdown(await client.hover(uri, inside(TRANSACTION, 'DELAYED_DURABILITY = ON')));
    assert.match(commitOption, /COMMIT … WITH \(DELAYED_DURABILITY = ON\)/);
    assert.match(commitOption, /only when the database is `ALLOWED`/);
    assert.match(commitOption, /control-transaction-durability/);

    const flush = await client.hover(uri, inside(TRANSACTION, 'sp_flush_log'));
    assert.match(markdown(flush), /return code is \*\*1 on success\*\*/);
    assert.match(markdown(flush), /sys-sp-flush-log-transact-sql/);
    assert.deepEqual(flush!.range, rangeOf(TRANSACTION, 'sp_flush_log'));

    const forced = markdown(await client.hover(uri, inside(TRANSACTION, 'FORCED')));
    assert.match(forced, /\*\*DELAYED_DURABILITY = FORCED\*\*: every commit is delayed durable/);
    assert.match(forced, /alter-database-transact-sql-set-options/);

    const option = markdown(await client.hover(uri, inside(TRANSACTION, 'DELAYED_DURABILITY = FORCED')));
    assert.match(option, /database option/);

    const commit = markdown(await client.hover(uri, inside(TRANSACTION, 'COMMIT')));
    assert.match(commit, /\| ALLOWED \| delayed durable \|/);
    assert.match(commit, /\| DISABLED \| fully durable \|/);

    await client.setDatabase({ database: 'Sales', delayedDurability: 'ALLOWED' });
    // Notifications and requests are handled in order, so the next hover already sees the context.
    const connected = markdown(await client.hover(uri, inside(TRANSACTION, 'COMMIT')));
    assert.match(connected, /\*\*delayed durable\*\* on database `Sales` \(DELAYED_DURABILITY = ALLOWED\)/);
    await client.setDatabase(null);

    assert.equal(await client.hover(uri, inside(TRANSACTION, 'UPDATE')), null);
  });

  it('hovers explain BEGIN ATOMIC options and stay quiet in comments and strings', async () => {
    const uri = 'file:///work/atomic.sql';
    const text = [
      'CREATE PROCEDURE dbo.usp_add WITH NATIVE_COMPILATION, SCHEMABINDING',
      'AS BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N\'us_english\', DELAYED_DURABILITY = ON)',
      '    INSERT INTO dbo.t (col1) VALUES (1);',
      'END;',
      'GO',
      "-- DELAYED_DURABILITY in a comment, sp_flush_log too",
      "SELECT 'DELAYED_DURABILITY' AS s;",
      '',
    ].join('\n');
    await client.open(uri, text);
    for (const needle of ['ATOMIC', 'DELAYED_DURABILITY = ON']) {
      assert.match(markdown(await client.hover(uri, inside(text, needle))), /BEGIN ATOMIC WITH \(DELAYED_DURABILITY = ON \| OFF/, needle);
    }
    assert.equal(await client.hover(uri, inside(text, 'DELAYED_DURABILITY in a comment')), null);
    assert.equal(await client.hover(uri, inside(text, 'sp_flush_log too')), null);
    assert.equal(await client.hover(uri, inside(text, "DELAYED_DURABILITY' AS")), null);
    await client.close(uri);
  });

  it('a setting switches a diagnostic code off, and code lenses off, after didChangeConfiguration', async () => {
    const uri = 'file:///work/loop.sql';
    // Version 3 (loop without transaction) has its autocommit finding.
    const current = await client.diagnosticsOfVersion(uri, 3);
    assert.ok(current.diagnostics.some((d) => d.code === 'autocommit-dml-in-loop'));
    const requestsBefore = client.configurationRequests.length;

    const after = client.published.length;
    client.settings = { diagnostics: { autocommitDmlInLoop: false }, codeLens: { enabled: false } };
    await client.configurationChanged();
    const updated = await client.waitForDiagnostics(uri, (p) => p.version === 3, 10_000, after);
    assert.equal(updated.diagnostics.some((d) => d.code === 'autocommit-dml-in-loop'), false);
    assert.deepEqual(await client.codeLenses(uri), []);
    // The server pulled the settings again, scoped to the document.
    assert.ok(client.configurationRequests.slice(requestsBefore).includes(uri));

    const restored = client.published.length;
    client.settings = {};
    await client.configurationChanged();
    const back = await client.waitForDiagnostics(uri, (p) => p.version === 3, 10_000, restored);
    assert.ok(back.diagnostics.some((d) => d.code === 'autocommit-dml-in-loop'));
    assert.equal((await client.codeLenses(uri)).length, 3);
  });

  it('closing a document clears its diagnostics', async () => {
    const uri = 'file:///work/loop.sql';
    const after = client.published.length;
    await client.close(uri);
    const cleared = await client.waitForDiagnostics(uri, () => true, 10_000, after);
    assert.deepEqual(cleared.diagnostics, []);
  });
});

describe('language server without workspace/configuration support', () => {
  it('runs on default settings', async () => {
    const { client } = await LspTestClient.start({ configuration: false });
    try {
      const uri = 'file:///work/defaults.sql';
      await client.open(uri, LOOP);
      const published = await client.diagnosticsOfVersion(uri, 1);
      assert.deepEqual(published.diagnostics.map((d) => d.code), ['autocommit-dml-in-loop']);
      assert.equal(client.configurationRequests.length, 0);
      assert.equal((await client.codeLenses(uri)).length, 1);
    } finally {
      await client.stop();
    }
  });
});
