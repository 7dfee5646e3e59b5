// Terminal neutralisation of everything the CLI prints: control and bidi characters become visible escape text,
// JSON stays valid and lossless, and runCli applies it to every write of every command.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runCli } from '../../../src/cli/dispatch';
import type { CliCommand, CliIO } from '../../../src/cli/io';
import { isTerminalSafe, terminalField, terminalSafe } from '../../../src/cli/terminalText';

describe('cli: terminal text', () => {
  it('writes ESC, CSI, OSC, BEL, CR, C1 and bidi overrides as visible text; keeps tab, newline and Unicode', () => {
    assert.equal(terminalSafe('a\x1b[2Jb'), 'a\\x1b[2Jb');
    assert.equal(terminalSafe('\x1b]52;c;ZXZpbA==\x07'), '\\x1b]52;c;ZXZpbA==\\x07');
    assert.equal(terminalSafe('fake\rALL GOOD'), 'fake\\x0dALL GOOD');
    assert.equal(terminalSafe('\x9b31m\x85'), '\\u009b31m\\u0085');
    assert.equal(terminalSafe('abc\u202Efdp.exe\u2066x\u2069'), 'abc\\u202efdp.exe\\u2066x\\u2069');
    assert.equal(terminalSafe('\x7f'), '\\u007f');
    // DEL inside JSON: the escape is JSON's own, so the output still parses to the original (a 300-run fuzz found it).
    assert.deepEqual(JSON.parse(terminalSafe(JSON.stringify([['\x7f', '\\\x7f']])) ), [['\x7f', '\\\x7f']]);
    assert.equal(terminalSafe('tab\there\nÜnïcødé 数据库 🚀'), 'tab\there\nÜnïcødé 数据库 🚀');
  });

  it('fuzz: no output holds a character a terminal acts on', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const safe = terminalSafe(s);
        assert.ok(isTerminalSafe(safe), JSON.stringify(safe));
        assert.equal(safe.includes('\x1b'), false);
      }),
      { numRuns: 500 },
    );
  });

  it('fuzz: JSON output stays valid and decodes to the original strings', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }))), (value) => {
        const text = terminalSafe(JSON.stringify(value, null, 2));
        assert.ok(isTerminalSafe(text));
        assert.deepEqual(JSON.parse(text), value);
      }),
      { numRuns: 300 },
    );
  });

  it('runCli neutralises stdout and stderr of any command, and keeps the other IO members', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIO & { extra: string } = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), readFile: () => 'file', extra: 'kept' };
    const echo: CliCommand = {
      name: 'echo',
      summary: 's',
      usage: 'u',
      run: async (_args, cio) => {
        cio.stdout(`db \x1b[31mred\x1b[0m ${cio.readFile('x')} ${(cio as typeof io).extra}\n`);
        cio.stderr('\x1b]0;title\x07\n');
        return 0;
      },
    };
    assert.equal(await runCli(['echo'], io, [echo]), 0);
    assert.deepEqual(out, ['db \\x1b[31mred\\x1b[0m file kept\n']);
    assert.deepEqual(err, ['\\x1b]0;title\\x07\n']);
    assert.equal(await runCli(['nope\x1b[2J'], io, [echo]), 2);
    assert.ok(!err.join('').includes('\x1b'));
  });

  it('terminalField keeps a field on its line: LF, CR, VT, FF, NEL, U+2028 and U+2029 become visible escape text', () => {
    assert.equal(terminalField('p\n  9999 ×'), 'p\\x0a  9999 ×');
    assert.equal(terminalField('a\r\nb\u000bc\u000cd\u0085e\u2028f\u2029g\th'), 'a\\x0d\\x0ab\\x0bc\\x0cd\\u0085e\\u2028f\\u2029g\th');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const field = terminalField(s);
        assert.ok(isTerminalSafe(field));
        assert.ok(!/[\n\u2028\u2029]/.test(field), JSON.stringify(field));
        // Running the whole output through terminalSafe again (runCli does) changes nothing.
        assert.equal(terminalSafe(field), field);
      }),
      { numRuns: 500 },
    );
  });
});
