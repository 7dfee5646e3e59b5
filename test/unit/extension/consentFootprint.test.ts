// The consent view shows what a script says of itself in its header ("-- Footprint: …", every shipped sample has one,
// issue 28): read from the opening comment block only, bounded, neutralised, and labelled as the file's own claim.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { footprintNotes, statedFootprint } from '../../../src/extension/consent/footprint';

const SAMPLES = join(__dirname, '../../../samples');

describe('consent view: the footprint a script states in its header', () => {
  it('reads one statement that runs over lines until its full stop', () => {
    const text = '-- S9: a loop.\n-- Footprint: 2,000 rows per session; about 8 MB of log\n-- per session and run.\n-- Next sentence.\nSET NOCOUNT ON;\n';
    assert.equal(statedFootprint(text), 'Footprint: 2,000 rows per session; about 8 MB of log per session and run.');
  });

  it('ignores a Footprint line after the header, and files without one', () => {
    assert.equal(statedFootprint('SET NOCOUNT ON;\n-- Footprint: 1 row.\n'), null);
    assert.equal(statedFootprint('-- just a comment\nSELECT 1;\n'), null);
    assert.deepEqual(footprintNotes('SELECT 1;'), []);
  });

  it('reads a UTF-8 BOM file with CRLF lines', () => {
    assert.equal(statedFootprint('\uFEFF-- Footprint: 1 row; under 1 MB of log.\r\nSELECT 1;\r\n'), 'Footprint: 1 row; under 1 MB of log.');
  });

  it('strips control and bidirectional characters and bounds the length of a hostile header', () => {
    const hostile = `-- Footprint: safe\u202e\u0007 ${'x'.repeat(1000)}\n-- more\n-- more\n-- more.\nSELECT 1;`;
    const stated = statedFootprint(hostile)!;
    assert.ok(!/[\u0000-\u001f\u202e]/.test(stated), JSON.stringify(stated));
    assert.ok(stated.length <= 400);
    assert.match(footprintNotes(hostile)[0]!, /^The file's header says what it does — Footprint: safe/);
    assert.match(footprintNotes(hostile)[0]!, /the file's own statement, not checked\)\.$/);
  });

  it('finds a footprint in every shipped sample', () => {
    const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.sql'));
    assert.ok(files.length >= 9);
    for (const f of files) {
      const stated = statedFootprint(readFileSync(join(SAMPLES, f), 'utf8'));
      assert.match(stated ?? '', /^Footprint: .*\b(\d[\d,]*|0) rows?\b.*\bof log\b.*\.$/, f);
    }
  });
});
