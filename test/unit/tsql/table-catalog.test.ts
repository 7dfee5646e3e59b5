// What the table catalog reads from a script's declarations (src/tsql/table-catalog.ts).
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { lex } from '../../../src/tsql/lexer';
import { TableCatalog } from '../../../src/tsql/table-catalog';
import { script } from './helpers';

const catalogOf = (text: string): TableCatalog => TableCatalog.of(lex(text));

describe('tsql table catalog', () => {
  it('reads a table constraint written after the last column without a comma, and ignores CHECK constraints', () => {
    const c = catalogOf(script(
      'CREATE TABLE [dbo].[Resource] (',
      '  TypeId smallint NOT NULL, Id bigint NOT NULL,',
      '  Tran bigint NULL CONSTRAINT PKC_Resource PRIMARY KEY CLUSTERED (TypeId, Id) WITH (DATA_COMPRESSION = PAGE) ON ps (TypeId),',
      '  CONSTRAINT CH_Raw CHECK (Tran > 0)',
      ')'));
    assert.deepEqual(c.lookup(['dbo', 'resource'], 0)?.keys, [['typeid', 'id']]);
  });

  it('reads inline unique indexes of memory-optimized tables and their durability; skips temp tables', () => {
    const c = catalogOf(script(
      'CREATE TABLE #t (id int PRIMARY KEY);',
      'CREATE TABLE dbo.M (id int NOT NULL, code int NOT NULL,',
      '  INDEX ix_code UNIQUE NONCLUSTERED (code), INDEX ix_plain NONCLUSTERED (id),',
      '  PRIMARY KEY NONCLUSTERED HASH (id) WITH (BUCKET_COUNT = 64)',
      ') WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_ONLY);'));
    const m = c.lookup(['m'], 0)!;
    assert.deepEqual([m.schemaOnly, m.keys], [true, [['code'], ['id']]]);
    assert.equal(c.lookup(['#t'], 0), null);
    assert.equal(c.size, 1);
  });

  it('picks the declaration in force at a statement: the last before it, else the first after it', () => {
    const text = script(
      'CREATE TABLE dbo.T (id int) WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_ONLY);',
      'DROP TABLE dbo.T;',
      'CREATE TABLE dbo.T (id int PRIMARY KEY);');
    const c = catalogOf(text);
    const second = text.indexOf('CREATE TABLE dbo.T (id int PRIMARY');
    assert.equal(c.lookup(['dbo', 't'], 0)!.schemaOnly, true);
    assert.equal(c.lookup(['dbo', 't'], second + 1)!.schemaOnly, false);
    assert.equal(c.lookup(['other', 't'], 0), null, 'another schema is another table');
    assert.equal(c.lookup(['db', '', 't'], 0)!.schemaOnly, true, 'db..t names no schema');
  });

  it('stays linear on thousands of unclosed declarations (each ends at the next CREATE)', () => {
    const broken = 'CREATE TABLE dbo.T (id int PRIMARY KEY,\n'.repeat(20_000);
    const c = catalogOf(broken);
    assert.equal(c.lookup(['dbo', 't'], 0)?.keys.length, 1);
    // A loop over the broken text still analyses: the catalog is built once, lazily, when a loop's DML asks.
    const text = `${broken}GO\nWHILE @i < 10000 BEGIN UPDATE dbo.T SET v = 1 WHERE id = @i; END`;
    assert.equal(analyze(text).diagnostics.filter((d) => d.code === 'autocommit-dml-in-loop').length, 1);
  });
});
