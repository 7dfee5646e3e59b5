// splitSetup / splitByLineMarkers: the line markers, the batch-level alias, line mapping and mistakes.
import { strict as assert } from 'node:assert';
import { isBlankSql, SetupMarkerError, splitSetup } from '../../../src/profile/setupMarkers';
import { analyze } from '../../../src/tsql';

const batchesOf = (text: string) => analyze(text).batches.map(({ text: t, repeat, firstLine }) => ({ text: t, repeat, firstLine }));

describe('profile: setup markers', () => {
  it('lines between setup and measure are setup, the rest measured, each keeping its document lines', () => {
    const text = ['SET NOCOUNT ON;', '-- durability-lens: setup', 'CREATE TABLE t (i int);', '-- durability-lens: measure', 'INSERT t VALUES (1);'].join('\n');
    const { setup, measured } = splitSetup(batchesOf(text));
    assert.equal(setup.length, 1);
    assert.equal(measured.length, 1);
    // Blanked, not removed: line 3 of the batch is still line 3.
    assert.deepEqual(setup[0]!.text.split('\n'), ['', '-- durability-lens: setup', 'CREATE TABLE t (i int);', '', '']);
    assert.deepEqual(measured[0]!.text.split('\n'), ['SET NOCOUNT ON;', '', '', '-- durability-lens: measure', 'INSERT t VALUES (1);']);
    assert.equal(setup[0]!.firstLine, 0);
    assert.equal(measured[0]!.firstLine, 0);
  });

  it('a section may span GO separators and there may be several; comment-only fragments are dropped', () => {
    const text = ['-- durability-lens: setup', 'CREATE TABLE a (i int);', 'GO', 'CREATE TABLE b (i int);', '-- durability-lens: measure', 'GO', 'INSERT a VALUES (1);', 'GO', '-- durability-lens: setup', 'TRUNCATE TABLE b;', '-- durability-lens: measure', 'INSERT b VALUES (2);'].join('\n');
    const { setup, measured } = splitSetup(batchesOf(text));
    assert.deepEqual(setup.map((b) => b.text.trim()), ['-- durability-lens: setup\nCREATE TABLE a (i int);', 'CREATE TABLE b (i int);', '-- durability-lens: setup\nTRUNCATE TABLE b;']);
    assert.deepEqual(measured.map((b) => b.text.replace(/\n+/g, '\n').trim()), ['INSERT a VALUES (1);', '-- durability-lens: measure\nINSERT b VALUES (2);']);
    assert.deepEqual(measured.map((b) => b.firstLine), [6, 8]);
  });

  it('keeps the batch-level "setup-end" alias: batches up to and including the marker are setup', () => {
    const text = ['SET NOCOUNT ON;', 'GO', '-- durability-lens: setup-end', 'CREATE TABLE t (i int);', 'GO', 'INSERT t VALUES (1);'].join('\n');
    const { setup, measured } = splitSetup(batchesOf(text));
    assert.equal(setup.length, 2);
    assert.deepEqual(measured.map((b) => b.text.trim()), ['INSERT t VALUES (1);']);
  });

  it('an explicit count wins over markers', () => {
    const text = ['-- durability-lens: setup', 'SELECT 1;', '-- durability-lens: measure', 'GO', 'SELECT 2;', 'GO', 'SELECT 3;'].join('\n');
    const { setup, measured } = splitSetup(batchesOf(text), 2);
    assert.equal(setup.length, 2);
    assert.equal(measured.length, 1);
  });

  it('unpaired markers are errors that name the line', () => {
    assert.throws(() => splitSetup(batchesOf('SELECT 1;\n-- durability-lens: setup\nSELECT 2;')), (e: unknown) => e instanceof SetupMarkerError && /Line 2: .*no '-- durability-lens: measure'/.test(e.message));
    assert.throws(() => splitSetup(batchesOf('SELECT 1;\n-- durability-lens: measure')), (e: unknown) => e instanceof SetupMarkerError && /Line 2/.test(e.message));
    assert.throws(() => splitSetup(batchesOf('-- durability-lens: setup\n-- durability-lens: setup\n-- durability-lens: measure')), /inside a setup section that started at line 1/);
  });

  it('markers are whole-line comments: "setup-end" and prose mentioning the marker are not line markers', () => {
    const text = 'SELECT 1; -- durability-lens: setup\nSELECT 2;';
    assert.deepEqual(splitSetup(batchesOf(text)).setup, []);
  });

  it('isBlankSql ignores comments and whitespace only', () => {
    assert.equal(isBlankSql('\n -- x\n/* y\n */\n'), true);
    assert.equal(isBlankSql('-- x\nSELECT 1'), false);
    assert.equal(isBlankSql('-- x\rSELECT 1'), false, 'a bare CR ends a line comment too');
  });

  it('a marker inside a block comment or a string is text, not a marker: nothing commented out runs as setup', () => {
    const commented = ['/* old setup, disabled on purpose:', '-- durability-lens: setup', 'DROP TABLE dbo.victim;', '-- durability-lens: measure', '*/', 'SELECT 1;'].join('\n');
    const a = splitSetup(batchesOf(commented));
    assert.equal(a.setup.length, 0);
    assert.deepEqual(a.measured.map((b) => b.text), [commented]);
    // Nested block comments (T-SQL allows them): still inside after the inner one closes.
    const nested = ['/* outer /* inner */', '-- durability-lens: setup', 'DROP TABLE dbo.victim;', '-- durability-lens: measure', '*/', 'SELECT 1;'].join('\n');
    assert.equal(splitSetup(batchesOf(nested)).setup.length, 0);
    const inString = ["SELECT '", '-- durability-lens: setup', "' AS x;"].join('\n');
    assert.deepEqual(splitSetup(batchesOf(inString)).measured.map((b) => b.text), [inString]);
    // The batch-level alias inside a string is not a marker either.
    const printed = ["PRINT '-- durability-lens: setup-end';", 'GO', 'INSERT t VALUES (1);'].join('\n');
    assert.equal(splitSetup(batchesOf(printed)).setup.length, 0);
    // …while a real one after a comment and a string on earlier lines still is.
    const real = ["/* note */ SELECT 'x';", '-- durability-lens: setup-end', 'GO', 'INSERT t VALUES (1);'].join('\n');
    assert.equal(splitSetup(batchesOf(real)).setup.length, 1);
  });

  it('CR-only and CRLF files split exactly as their LF version, keeping their own line breaks', () => {
    const lf = ['-- durability-lens: setup', 'CREATE TABLE t (i int);', '-- durability-lens: measure', 'INSERT t VALUES (1);'];
    const expected = splitSetup(batchesOf(lf.join('\n')));
    for (const eol of ['\r', '\r\n']) {
      const got = splitSetup(batchesOf(lf.join(eol)));
      assert.deepEqual(got.setup.map((b) => b.text.split(eol)), expected.setup.map((b) => b.text.split('\n')), JSON.stringify(eol));
      assert.deepEqual(got.measured.map((b) => b.text.split(eol)), expected.measured.map((b) => b.text.split('\n')), JSON.stringify(eol));
    }
  });
});
