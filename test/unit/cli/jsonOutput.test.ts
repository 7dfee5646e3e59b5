// Every JSON document the CLI prints goes through jsonText (src/report/jsonText.ts), which writes DEL, C1 controls and
// bidi marks as \uXXXX escapes: JSON.stringify leaves them raw and the terminal filter turned DEL into "\x7f" until it wrote "\u007f" too,
// which no JSON parser accepts (issue 25 N8; the outside attack found `trace read --json` and `top-log --json` doing it).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const commands = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'commands');

describe('CLI JSON output', () => {
  it('no command formats its output with JSON.stringify (jsonText keeps it valid after the terminal filter)', () => {
    const files = fs.readdirSync(commands).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length >= 8, `commands found: ${files.join(', ')}`);
    const offenders = files.filter((f) => /JSON\.stringify\(/.test(fs.readFileSync(path.join(commands, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
