// The consent view's pure parts (issue 25): which batches change data or schema (from the analyzer's structure),
// what a confirmation covers (file text, exact batch text, GO count, connection) and when it is revoked, and the text
// the user reads (batch by batch, document line numbers, setup first).
import * as assert from 'node:assert/strict';
import { classifyBatch } from '../../../src/tsql/classify';
import { CONSENT_STATE_KEY, ConsentStore, MAX_CONSENT_FILES, MemoryMemento, sha256 } from '../../../src/extension/consent/consentStore';
import { consentKeys, consentMessage, consentText, CONSENT_MESSAGE_PREFIX, MODAL_MAX_LINES, modalText, needsConsent, partsOfWorkload, type ConsentRequest } from '../../../src/extension/consent/consentView';
import { procedureConsentParts } from '../../../src/extension/consent/procedureParts';

const whats = (text: string, firstLine = 0) => classifyBatch(text, firstLine).changes.map((c) => `${c.what}@${c.line + 1}`);

describe('consent: does a batch change data or schema?', () => {
  it('reads only: SELECT, variables, PRINT, IF/WHILE/TRY blocks, transaction control, cursors, WAITFOR DELAY, sp_flush_log', () => {
    for (const text of [
      'SELECT 1;',
      'SET NOCOUNT ON;\nDECLARE @i int = 0;\nWHILE @i < 3 BEGIN SELECT @i = @i + 1; PRINT @i; END',
      "IF EXISTS (SELECT 1 FROM sys.databases WHERE name = N'lab') SELECT 1 ELSE RAISERROR('x', 16, 1);",
      'BEGIN TRY BEGIN TRAN; SELECT COUNT(*) FROM dbo.t; COMMIT; END TRY BEGIN CATCH ROLLBACK; THROW; END CATCH',
      'DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT id FROM dbo.t;\nDECLARE @id int;\nOPEN c;\nFETCH NEXT FROM c INTO @id;\nCLOSE c;\nDEALLOCATE c;',
      "WAITFOR DELAY '00:00:01';\nEXEC sys.sp_flush_log;\nCHECKPOINT;",
      '-- only a comment\n/* and another */',
      "SELECT N'DELETE FROM dbo.t; DROP TABLE x' AS text_not_code; -- EXEC sp_who in a comment",
    ]) {
      const c = classifyBatch(text, 0);
      assert.equal(c.readOnly, true, `${text}: ${JSON.stringify(c.changes)}`);
    }
  });

  it('changes: DML, SELECT INTO, DDL, EXEC, a nested EXEC, linked-server reads, sequences, RECEIVE — with document lines', () => {
    assert.deepEqual(whats('SET NOCOUNT ON;\nDELETE FROM dbo.t;\nINSERT dbo.t VALUES (1);', 300), ['DELETE@302', 'INSERT@303']);
    assert.deepEqual(whats('SELECT * INTO dbo.copy FROM dbo.t;'), ['SELECT INTO@1']);
    assert.deepEqual(whats('CREATE TABLE dbo.t (id int);\nTRUNCATE TABLE dbo.t;\nDROP TABLE dbo.t;'), ['CREATE TABLE@1', 'TRUNCATE TABLE@2', 'DROP TABLE@3']);
    assert.deepEqual(whats('EXEC dbo.reset;'), ['EXEC (runs a procedure or dynamic SQL: may change data)@1']);
    assert.deepEqual(whats("IF 1 = 1\n  EXEC (N'DELETE FROM dbo.t');"), ['EXEC (runs a procedure or dynamic SQL: may change data)@2']);
    assert.deepEqual(whats("SELECT * FROM OPENQUERY(remote, 'SELECT 1');"), ['OPENQUERY@1']);
    assert.deepEqual(whats('SELECT NEXT VALUE FOR dbo.seq;'), ['NEXT VALUE FOR (advances a sequence)@1']);
    assert.deepEqual(whats('WAITFOR (RECEIVE TOP (1) * FROM dbo.q), TIMEOUT 100;'), ['WAITFOR (RECEIVE)@1']);
    assert.deepEqual(whats('UPDATE STATISTICS dbo.t;'), ['UPDATE STATISTICS@1']);
    assert.deepEqual(whats('WITH c AS (SELECT 1 AS a)\nDELETE FROM dbo.t WHERE id IN (SELECT a FROM c);'), ['DELETE@1']);
    assert.deepEqual(whats("ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED;"), ['ALTER DATABASE@1']);
    // Not readable by the scan: unsure, so a change (asked).
    assert.equal(classifyBatch('$$$ what is this', 0).readOnly, false);
  });

  it('sp_flush_log reads only as the system procedure: a schema other than sys, or another spelling, is a procedure call that may change data (outside attack)', () => {
    // Learn "Execute a stored procedure": the calling database's collation matches system procedure names, and a
    // user-defined procedure may share a system procedure's name; sys.sp_flush_log is the one documented spelling.
    for (const text of ['EXEC sp_flush_log;', 'EXEC sys.sp_flush_log;', 'EXECUTE [sys].[sp_flush_log]', 'EXEC lab.sys.sp_flush_log;', 'DECLARE @rc int; EXEC @rc = sys.sp_flush_log;', 'EXEC /* harden */ sys . sp_flush_log;']) {
      assert.equal(classifyBatch(text, 0).readOnly, true, text);
    }
    for (const text of ['EXEC dbo.sp_flush_log;', 'EXEC [evil].[sp_flush_log] @rows = 1;', 'EXEC master.dbo.sp_flush_log;', 'EXEC lab..sp_flush_log;', 'EXEC SP_FLUSH_LOG;', 'EXEC "app"."sp_flush_log";', 'EXEC srv.lab.sys.sp_flush_log;']) {
      assert.deepEqual(whats(text), ['EXEC (runs a procedure or dynamic SQL: may change data)@1'], text);
    }
  });

  it('USE counts: the statements after it change another database than the one the consent view names (outside attack)', () => {
    assert.deepEqual(whats('USE [prod];\nDELETE FROM dbo.t;'), ["USE (switches database: what follows runs there, not in the connection's database)@1", 'DELETE@2']);
    assert.equal(classifyBatch('USE tempdb; SELECT 1;', 0).readOnly, false);
  });

  it('a procedure: deploying it is a schema change; what a call runs is its body only', () => {
    const proc = 'CREATE OR ALTER PROCEDURE dbo.p @n int = 1\nAS\nBEGIN\n  SELECT @n;\nEND';
    assert.deepEqual(whats(proc, 10), ['CREATE OR ALTER PROCEDURE@11']);
    assert.equal(classifyBatch(proc, 10, { bodyOnly: true }).readOnly, true);
    const writer = 'CREATE PROCEDURE dbo.w AS\nBEGIN\n  DELETE FROM dbo.t;\nEND';
    assert.deepEqual(classifyBatch(writer, 0, { bodyOnly: true }).changes.map((c) => `${c.what}@${c.line + 1}`), ['DELETE@3']);
  });
});

describe('consent store: per workspace, per file and text, revoked on edit', () => {
  const file = 'file:///w/s1.sql';
  const text = 'DELETE FROM dbo.t;\nGO\nSELECT 1;';

  it('remembers exactly the confirmed keys for this file and text', async () => {
    const store = new ConsentStore(new MemoryMemento());
    assert.equal(await store.has(file, text, ['a']), false);
    await store.grant(file, text, ['a', 'b']);
    assert.equal(await store.has(file, text, ['a']), true);
    assert.equal(await store.has(file, text, ['a', 'b']), true);
    assert.equal(await store.has(file, text, ['a', 'c']), false, 'a part never confirmed');
    assert.equal(await store.has('file:///w/other.sql', text, ['a']), false, 'another file with the same text');
  });

  it('an edit revokes every confirmation of the file; undoing the edit does not bring them back', async () => {
    const memento = new MemoryMemento();
    const store = new ConsentStore(memento);
    await store.grant(file, text, ['a']);
    assert.equal(await store.has(file, `${text}\n-- edited`, ['a']), false);
    assert.equal(await store.has(file, text, ['a']), false, 'revoked, not just unmatched');
    assert.deepEqual(memento.get(CONSENT_STATE_KEY), {});
    await store.grant(file, text, ['a']);
    await store.revoke(file);
    assert.equal(await store.has(file, text, ['a']), false);
  });

  it('is per workspace: another workspace state knows nothing of it', async () => {
    const one = new ConsentStore(new MemoryMemento());
    const two = new ConsentStore(new MemoryMemento());
    await one.grant(file, text, ['a']);
    assert.equal(await two.has(file, text, ['a']), false);
    assert.equal(await one.has(file, text, ['a']), true);
  });

  it('stores hashes, not text; ignores a malformed state; keeps at most MAX_CONSENT_FILES files', async () => {
    const memento = new MemoryMemento();
    await memento.update(CONSENT_STATE_KEY, { [file]: { fileHash: 42, keys: 'x' }, __proto__: { polluted: true }, other: null });
    const store = new ConsentStore(memento, (() => { let t = 0; return () => new Date(1_700_000_000_000 + t++ * 1000); })());
    assert.equal(await store.has(file, text, []), false);
    await store.grant(file, text, ['k']);
    const saved = JSON.stringify(memento.get(CONSENT_STATE_KEY));
    assert.ok(saved.includes(sha256(text)) && !saved.includes('DELETE FROM'), saved);
    for (let i = 0; i < MAX_CONSENT_FILES + 5; i++) await store.grant(`file:///w/f${i}.sql`, 'x', ['k']);
    assert.equal(store.files().length, MAX_CONSENT_FILES);
    assert.ok(!store.files().includes(file), 'the least recently confirmed file was forgotten first');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

function request(parts: ConsentRequest['parts'], database = 'lab'): ConsentRequest {
  return {
    action: 'Profile batch 3 (lines 307–312)',
    file: { uri: 'file:///w/s.sql', name: 's.sql', text: '' },
    connection: { profileName: 'Stand-in (lab)', server: '127.0.0.1,14333', database },
    parts,
    confirmLabel: 'Run',
    notes: [],
  };
}

describe('consent view: what the user reads and what a confirmation covers', () => {
  const setup = { text: '-- durability-lens: setup-end\nDELETE FROM dbo.t;', repeat: 1, firstLine: 0 };
  const loop = { text: 'DECLARE @i int = 0;\n\n\n\nWHILE @i < 10\nBEGIN\n  INSERT dbo.t DEFAULT VALUES;\n  SET @i += 1;\nEND', repeat: 2, firstLine: 306 };

  it('shows the setup first and the measured batch after it, every line with its document line number', () => {
    const parts = partsOfWorkload([setup, { ...loop, empty: false }, { text: '-- nothing', repeat: 1, firstLine: 400, empty: true }], 'profile');
    assert.deepEqual(parts.map((p) => p.heading), ['Setup — runs first, unmeasured', 'Measured']);
    const r = request(parts);
    assert.equal(needsConsent(r), true);
    const text = consentText(r);
    assert.match(text, /It changes data or schema: DELETE \(line 2\), INSERT \(line 313\)\./);
    assert.match(text, /── Setup — runs first, unmeasured \(lines 1–2\) — changes: DELETE \(line 2\) ──\n1 │ -- durability-lens: setup-end\n2 │ DELETE FROM dbo\.t;/);
    assert.match(text, /── Measured \(lines 307–315, GO 2: sent 2 times\) — changes: INSERT \(line 313\) ──\n307 │ DECLARE @i int = 0;\n308 │ \n311 │ WHILE @i < 10\n/);
    assert.match(text, /313 │ {3}INSERT dbo\.t DEFAULT VALUES;/);
    assert.ok(consentMessage(r).startsWith(CONSENT_MESSAGE_PREFIX));
  });

  it('a comparison says setup runs before every run', () => {
    const parts = partsOfWorkload([setup, loop], 'compare');
    assert.match(parts[0]!.heading, /before every run of the comparison/);
    assert.match(parts[1]!.heading, /runs in every run of the comparison/);
  });

  it('reads only: no consent needed', () => {
    assert.equal(needsConsent(request(partsOfWorkload([{ text: 'SELECT 1;', repeat: 1, firstLine: 0 }], 'profile'))), false);
  });

  it('a key changes with the text, the GO count and the database', () => {
    const parts = partsOfWorkload([loop], 'profile');
    const base = consentKeys(request(parts));
    assert.notDeepEqual(consentKeys(request(partsOfWorkload([{ ...loop, text: `${loop.text} ` }], 'profile'))), base);
    assert.notDeepEqual(consentKeys(request(partsOfWorkload([{ ...loop, repeat: 3 }], 'profile'))), base);
    assert.notDeepEqual(consentKeys(request(parts, 'production')), base);
    assert.deepEqual(consentKeys(request(partsOfWorkload([{ ...loop, firstLine: 0 }], 'profile'))), base, 'the same text moved in the file');
  });

  it('a text too long for the modal is cut there with a pointer to the tab that holds all of it', () => {
    const long = Array.from({ length: 500 }, (_, i) => `INSERT dbo.t VALUES (${i});`).join('\n');
    const whole = consentText(request(partsOfWorkload([{ text: long, repeat: 1, firstLine: 0 }], 'profile')));
    const shown = modalText(whole, 'What runs — s.sql');
    assert.equal(shown.truncated, true);
    assert.ok(shown.text.split('\n').length <= MODAL_MAX_LINES + 1);
    assert.match(shown.text, /more lines: the whole text is in the read-only tab "What runs — s\.sql"/);
    assert.deepEqual(modalText('short', 'x'), { text: 'short', truncated: false });
  });

  it('a procedure call: the deploy, the call and the definition it runs; a read-only procedure needs no consent', () => {
    const reader = 'CREATE OR ALTER PROCEDURE dbo.r AS\nSELECT 1;';
    const readOnly = procedureConsentParts({ name: 'dbo.r', callText: 'EXEC [dbo].[r]', definition: { source: 'editor', text: reader, firstLine: 4 }, deploy: null });
    assert.equal(needsConsent(request(readOnly)), false);
    const deploying = procedureConsentParts({ name: 'dbo.r', callText: 'EXEC [dbo].[r]', definition: { source: 'editor', text: reader, firstLine: 4 }, deploy: { statement: reader, firstLine: 4 } });
    assert.equal(needsConsent(request(deploying)), true);
    assert.deepEqual(deploying.map((p) => p.key), ['deploy', null, 'call']);
    const hidden = procedureConsentParts({ name: 'dbo.x', callText: 'EXEC [dbo].[x]', definition: { source: 'unknown', reason: 'it is deployed WITH ENCRYPTION' }, deploy: null });
    assert.equal(needsConsent(request(hidden)), true, 'unsure: asked');
    assert.match(consentText(request(hidden)), /may change data or schema: it is deployed WITH ENCRYPTION/);
    // New parameter values do not ask again: the call's text is shown but not part of the key.
    const a = consentKeys(request(procedureConsentParts({ name: 'dbo.r', callText: 'EXEC [dbo].[r] @n = 1', definition: { source: 'editor', text: reader, firstLine: 4 }, deploy: null })));
    const b = consentKeys(request(procedureConsentParts({ name: 'dbo.r', callText: 'EXEC [dbo].[r] @n = 2', definition: { source: 'editor', text: reader, firstLine: 4 }, deploy: null })));
    assert.deepEqual(a, b);
  });
});
