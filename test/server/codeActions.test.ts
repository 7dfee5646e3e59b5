// Quick fixes through the real language server over stdio: ask for the code actions of a published diagnostic,
// apply the chosen action's edit as an editor would, send the new text, and check what the server publishes next —
// the diagnostic is gone and nothing at information or warning took its place.
import * as assert from 'node:assert/strict';
import {
  CodeActionKind,
  DiagnosticSeverity,
  type CodeAction,
  type Diagnostic,
  type SnippetTextEdit,
  type TextDocumentEdit,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LspTestClient } from './support/lspClient';

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

const COMMIT_LOOP = [
  'DECLARE @i int = 0;',
  'WHILE @i < 1000',
  'BEGIN',
  '    BEGIN TRAN;',
  '    INSERT INTO dbo.t DEFAULT VALUES;',
  '    COMMIT TRAN;',
  '    SET @i += 1;',
  'END;',
].join('\n');

const FORCED = ['ALTER DATABASE [Sales] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;', 'GO', 'BEGIN TRAN;', 'UPDATE dbo.t SET a = 1;'].join('\n');

/** Applies a code action's edit to `text` as an editor would; a snippet's first placeholder becomes `typed`. */
function applyAction(action: CodeAction, uri: string, text: string, typed?: string): string {
  const edit = action.edit!;
  let edits: (TextEdit | SnippetTextEdit)[];
  if (edit.documentChanges) {
    const change = edit.documentChanges[0] as TextDocumentEdit;
    assert.equal(change.textDocument.uri, uri);
    edits = change.edits as (TextEdit | SnippetTextEdit)[];
  } else {
    edits = edit.changes![uri]!;
  }
  const plain = edits.map((e): TextEdit => {
    if ('newText' in e) return e;
    assert.ok(typed !== undefined, 'a snippet edit needs a typed value');
    const value = e.snippet.value.replace(/\$\{1:[^}]*\}/, typed).replace(/\\([\\$}])/g, '$1');
    assert.doesNotMatch(value, /\$\{\d/, 'every placeholder resolved');
    return { range: e.range, newText: value };
  });
  return TextDocument.applyEdits(TextDocument.create(uri, 'sql', 0, text), plain);
}

const serious = (d: Diagnostic): boolean => d.severity === DiagnosticSeverity.Warning || d.severity === DiagnosticSeverity.Information;
const codeOf = (d: Diagnostic): string => `${String(d.code)}/${d.severity}`;

describe('language server quick fixes over stdio (client with versioned edits and snippets)', function () {
  let client: LspTestClient;
  let version = 0;
  let quickfixKinds: unknown;

  before(async () => {
    const started = await LspTestClient.start({ workspaceEdit: { documentChanges: true, snippetEditSupport: true } });
    client = started.client;
    quickfixKinds = started.initialize.capabilities.codeActionProvider;
  });
  after(async () => {
    await client?.stop();
  });

  /** Opens `text`, returns its diagnostics and the actions offered for the first one with `code`. */
  async function actionsFor(uri: string, text: string, code: string): Promise<{ diagnostic: Diagnostic; all: Diagnostic[]; actions: CodeAction[] }> {
    version = 1;
    await client.open(uri, text, version);
    const published = await client.diagnosticsOfVersion(uri, version);
    const diagnostic = published.diagnostics.find((d) => d.code === code);
    assert.ok(diagnostic, `no ${code} in ${JSON.stringify(published.diagnostics.map((d) => d.code))}`);
    const actions = await client.codeActions(uri, diagnostic.range, { diagnostics: [diagnostic] });
    for (const a of actions) {
      assert.equal(a.kind, CodeActionKind.QuickFix);
      assert.deepEqual(a.diagnostics, [diagnostic]);
      assert.equal((a.edit!.documentChanges![0] as TextDocumentEdit).textDocument.version, version, 'edits are tied to the version they were made for');
    }
    return { diagnostic, all: published.diagnostics, actions };
  }

  /** Sends the fixed text as the next version and returns what the server publishes for it. */
  async function republished(uri: string, text: string): Promise<Diagnostic[]> {
    version++;
    await client.change(uri, version, [{ text }]);
    return (await client.diagnosticsOfVersion(uri, version)).diagnostics;
  }

  function pick(actions: CodeAction[], title: RegExp): CodeAction {
    const found = actions.find((a) => title.test(a.title));
    assert.ok(found, `no action ${title} in ${JSON.stringify(actions.map((a) => a.title))}`);
    return found;
  }

  it('declares quick-fix code actions', () => {
    assert.deepEqual(quickfixKinds, { codeActionKinds: [CodeActionKind.QuickFix] });
  });

  it('offers, for a loop of autocommit DML, the three transaction fixes and the two suppressions', async () => {
    const { actions } = await actionsFor('file:///w/offers.sql', LOOP, 'autocommit-dml-in-loop');
    assert.deepEqual(actions.map((a) => [a.title, a.isPreferred ?? false]), [
      ['Wrap the loop in one transaction (BEGIN TRANSACTION before, COMMIT after)', true],
      ['Wrap the loop in one transaction with SET XACT_ABORT ON and TRY…CATCH (an error rolls it all back)', false],
      ['Commit every N iterations (batching; type N in place)', false],
      ['Ignore autocommit-dml-in-loop on this line (-- durability-lens: ignore)', false],
      ['Ignore autocommit-dml-in-loop in this file (-- durability-lens: ignore-file)', false],
    ]);
  });

  for (const title of [/^Wrap the loop in one transaction \(/, /XACT_ABORT/]) {
    it(`applies «${title.source}»: autocommit-dml-in-loop is gone and nothing new is published`, async () => {
      const uri = `file:///w/wrap-${title.source.length}.sql`;
      const { actions, all } = await actionsFor(uri, LOOP, 'autocommit-dml-in-loop');
      const fixed = applyAction(pick(actions, title), uri, LOOP);
      assert.match(fixed, /BEGIN TRANSACTION;[\s\S]*WHILE @i < 1000[\s\S]*COMMIT TRANSACTION;/);
      assert.deepEqual(all.map((d) => d.code), ['autocommit-dml-in-loop']);
      assert.deepEqual((await republished(uri, fixed)).map(codeOf), []);
    });
  }

  it('applies "commit every N" as a snippet: N typed in place, the loop then commits every N and is only a hint', async () => {
    const uri = 'file:///w/every-n.sql';
    const { actions } = await actionsFor(uri, LOOP, 'autocommit-dml-in-loop');
    const action = pick(actions, /^Commit every N iterations/);
    const edits = (action.edit!.documentChanges![0] as TextDocumentEdit).edits;
    assert.equal(edits.length, 1);
    assert.match((edits[0] as SnippetTextEdit).snippet.value, /% \$\{1:1000\} = 0/);
    const fixed = applyAction(action, uri, LOOP, '250');
    assert.match(fixed, /IF @iterations_since_commit % 250 = 0\n {4}BEGIN\n {8}COMMIT TRANSACTION;\n {8}BEGIN TRANSACTION;\n {4}END\nEND;\nCOMMIT TRANSACTION;/);
    const after = await republished(uri, fixed);
    assert.deepEqual(after.filter(serious), []);
    assert.deepEqual(after.map(codeOf), ['commit-in-loop/4']);
    assert.match(String(after[0]!.message), /every 250 iterations/);
  });

  it('keeps snippet syntax in the script literal: $, } and \\ in the loop come back as written', async () => {
    const uri = 'file:///w/escape.sql';
    const text = LOOP.replace('INSERT INTO dbo.t DEFAULT VALUES;', "INSERT INTO dbo.t (note) VALUES (N'costs $5 ${x} {y} \\ \\$ done');");
    const { actions } = await actionsFor(uri, text, 'autocommit-dml-in-loop');
    const fixed = applyAction(pick(actions, /^Commit every N iterations/), uri, text, '64');
    assert.ok(fixed.includes("VALUES (N'costs $5 ${x} {y} \\ \\$ done');"), fixed);
    assert.match(fixed, /% 64 = 0/);
    assert.deepEqual((await republished(uri, fixed)).filter(serious), []);
  });

  it('makes a COMMIT in a loop delayed durable, saying in the title what that risks; commit-in-loop is gone', async () => {
    const uri = 'file:///w/delayed.sql';
    const { actions } = await actionsFor(uri, COMMIT_LOOP, 'commit-in-loop');
    const action = pick(actions, /DELAYED_DURABILITY = ON/);
    assert.match(action.title, /risks losing committed data on a crash/);
    const fixed = applyAction(action, uri, COMMIT_LOOP);
    assert.match(fixed, /^ {4}COMMIT TRAN WITH \(DELAYED_DURABILITY = ON\);$/m);
    const after = await republished(uri, fixed);
    assert.deepEqual(after.filter(serious), []);
    assert.deepEqual(after.map(codeOf), ['delayed-commit-needs-allowed/4']);
  });

  it('does not offer the delayed COMMIT once the connected database is DISABLED (the option would be ignored)', async () => {
    await client.setDatabase({ database: 'lab', delayedDurability: 'DISABLED' });
    try {
      const { actions } = await actionsFor('file:///w/disabled.sql', COMMIT_LOOP, 'commit-in-loop');
      assert.deepEqual(actions.map((a) => a.title).filter((t) => /DELAYED/.test(t)), []);
      assert.equal(actions.length, 2, 'the two suppressions remain');
    } finally {
      await client.setDatabase(null);
    }
  });

  for (const [code, text] of [['forced-durability-data-loss', FORCED], ['unbalanced-transaction', FORCED], ['autocommit-dml-in-loop', LOOP]] as const) {
    it(`suppresses ${code} for its line and for the file with a comment the analyzer honours`, async () => {
      for (const which of [/on this line/, /in this file/]) {
        const uri = `file:///w/suppress-${code}-${which.source.length}.sql`;
        const { actions, all } = await actionsFor(uri, text, code);
        const fixed = applyAction(pick(actions, which), uri, text);
        assert.match(fixed, new RegExp(`-- durability-lens: ignore${which.source.includes('file') ? '-file' : ''} ${code}`));
        const after = await republished(uri, fixed);
        assert.deepEqual(after.map((d) => d.code), all.map((d) => d.code).filter((c) => c !== code));
      }
    });
  }

  it('offers each loop its own wrap but the file-wide suppression once when a selection holds two findings', async () => {
    const uri = 'file:///w/two.sql';
    const text = `${LOOP}GO\n${LOOP}`;
    await client.open(uri, text, 1);
    const all = (await client.diagnosticsOfVersion(uri, 1)).diagnostics;
    assert.deepEqual(all.map((d) => d.code), ['autocommit-dml-in-loop', 'autocommit-dml-in-loop']);
    const range = { start: all[0]!.range.start, end: all[1]!.range.end };
    const titles = (await client.codeActions(uri, range, { diagnostics: all })).map((a) => a.title);
    assert.equal(titles.filter((t) => t.startsWith('Wrap the loop in one transaction (')).length, 2);
    assert.equal(titles.filter((t) => t.endsWith('in this file (-- durability-lens: ignore-file)')).length, 1);
    assert.equal(titles.filter((t) => t.includes('on this line')).length, 2);
  });

  it('answers only quick-fix requests, and nothing for a diagnostic that is not the current one', async () => {
    const uri = 'file:///w/only.sql';
    const { diagnostic } = await actionsFor(uri, LOOP, 'autocommit-dml-in-loop');
    assert.deepEqual(await client.codeActions(uri, diagnostic.range, { diagnostics: [diagnostic], only: [CodeActionKind.Refactor] }), []);
    assert.equal((await client.codeActions(uri, diagnostic.range, { diagnostics: [diagnostic], only: [CodeActionKind.QuickFix] })).length, 5);
    const stale = { ...diagnostic, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } };
    assert.deepEqual(await client.codeActions(uri, stale.range, { diagnostics: [stale] }), []);
    const foreign = { ...diagnostic, source: 'mssql' };
    assert.deepEqual(await client.codeActions(uri, foreign.range, { diagnostics: [foreign] }), []);
  });
});

describe('language server quick fixes over stdio (client without versioned edits or snippets)', function () {
  let client: LspTestClient;
  before(async () => {
    client = (await LspTestClient.start()).client;
  });
  after(async () => {
    await client?.stop();
  });

  it('sends plain `changes`, and commit-every-N with N = 1000 written out', async () => {
    const uri = 'file:///w/plain.sql';
    await client.open(uri, LOOP, 1);
    const diagnostic = (await client.diagnosticsOfVersion(uri, 1)).diagnostics[0]!;
    const actions = await client.codeActions(uri, diagnostic.range, { diagnostics: [diagnostic] });
    const batched = actions.find((a) => /^Commit every 1000 iterations/.test(a.title));
    assert.ok(batched, JSON.stringify(actions.map((a) => a.title)));
    assert.equal(batched.edit!.documentChanges, undefined);
    const fixed = applyAction(batched, uri, LOOP);
    assert.match(fixed, /% 1000 = 0/);
    await client.change(uri, 2, [{ text: fixed }]);
    const after = (await client.diagnosticsOfVersion(uri, 2)).diagnostics;
    assert.deepEqual(after.map(codeOf), ['commit-in-loop/4']);
  });
});
