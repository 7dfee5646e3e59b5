// What reaches the Durability Lens Output channel from a server or a file (PRINT and RAISERROR text, error messages,
// names, paths) is neutralised once where the channel is made (src/extension/language/outputChannel.ts): a lone CR, ESC
// sequences, C1 controls and bidi overrides show as visible escapes, no line of such text can pass for an entry of its
// own, and a very long line is cut with a count.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { sharedFake, useSharedFake } from './support/fakeVscode';
import { hasActiveCharacters, LOG_CONTINUATION, logEntryText, MAX_LOG_LINE } from '../../../src/shared/visibleText';
import { neutralOutputChannel } from '../../../src/extension/language/outputChannel';
import { setJournalOwnerSession } from '../../../src/profile/restoreJournal';

const root = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require(path.join(root, 'package.json')) as { activationEvents: string[] };

/** A workload's PRINT that tries every trick on a log line. */
const HOSTILE_PRINT = 'rows: 10\rrows: 0 — all good\x1b[2J\x1b]0;title\x07 \u202eDESREVER\u202c \u009b31m'
  + '\n2026-11-28 16:40:00.000 [info] Restored DELAYED_DURABILITY of [prod] to DISABLED (verified).\u2028fake too';

describe('the Output channel neutralises server- and file-provided text', () => {
  it('logEntryText: controls, ESC, C1 and bidi characters as visible escapes; continuation lines indented', () => {
    const text = logEntryText(HOSTILE_PRINT);
    assert.equal(hasActiveCharacters(text), false, text);
    assert.equal(text, 'rows: 10\\x0drows: 0 — all good\\x1b[2J\\x1b]0;title\\x07 \\u202eDESREVER\\u202c \\u009b31m'
      + `\n${LOG_CONTINUATION}2026-11-28 16:40:00.000 [info] Restored DELAYED_DURABILITY of [prod] to DISABLED (verified).\\u2028fake too`);
    // No line after the first starts at column 0, where the channel's own timestamps are.
    for (const line of text.split('\n').slice(1)) assert.ok(line.startsWith(LOG_CONTINUATION), line);
  });

  it('logEntryText: CRLF is one line break, tabs stay, blank lines stay blank, a plain line is unchanged', () => {
    assert.equal(logEntryText('Msg 50000, line 3:\r\nfirst\r\n\r\n\tsecond'), `Msg 50000, line 3:\n${LOG_CONTINUATION}first\n\n${LOG_CONTINUATION}\tsecond`);
    assert.equal(logEntryText('Connected "lab": sql1, database [d], TLS.'), 'Connected "lab": sql1, database [d], TLS.');
    assert.equal(logEntryText('ends with a break\n'), 'ends with a break\n');
  });

  it('logEntryText: a line longer than MAX_LOG_LINE is cut with a count, never inside a surrogate pair', () => {
    const long = `${'x'.repeat(MAX_LOG_LINE + 500)}TAIL`;
    assert.equal(logEntryText(long), `${'x'.repeat(MAX_LOG_LINE)}… (504 more characters not shown)`);
    const emoji = `${'y'.repeat(MAX_LOG_LINE - 1)}😀${'z'.repeat(10)}`;
    const cut = logEntryText(emoji);
    assert.ok(cut.startsWith(`${'y'.repeat(MAX_LOG_LINE - 1)}…`), 'cut before the pair, not inside it');
    assert.match(cut, /… \(12 more characters not shown\)$/);
    // A full PRINT message (8,000 characters) with a prefix of ours is not cut.
    const print = `[16:40:00.000 +3 ms] line 7: ${'p'.repeat(8000)}`;
    assert.equal(logEntryText(print), print);
  });

  it('neutralOutputChannel: every writing method neutralises strings and Errors; the others pass through', () => {
    const written: string[] = [];
    const record = (kind: string) => (...args: unknown[]) => void written.push(`${kind} ${args.map(String).join(' | ')}`);
    let shown = 0;
    const channel = {
      name: 'Durability Lens',
      logLevel: 2,
      append: record('append'), appendLine: record('appendLine'), replace: record('replace'),
      trace: record('trace'), debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error'),
      show: () => void shown++, clear() {}, hide() {}, dispose() {},
    };
    const output = neutralOutputChannel(channel as never) as unknown as typeof channel;
    output.info('a\rb');
    output.warn('w\x1b[31m');
    output.error(new Error('e\u202ex'));
    output.appendLine('l\u2066x');
    output.append('p\x00');
    output.replace('r\u009b');
    output.debug('d', 'arg\r');
    output.show();
    assert.equal(output.name, 'Durability Lens');
    assert.equal(output.logLevel, 2);
    assert.equal(shown, 1);
    assert.deepEqual(written.slice(0, 2), ['info a\\x0db', 'warn w\\x1b[31m']);
    assert.match(written[2]!, /^error Error: e\\u202ex/);
    assert.deepEqual(written.slice(3), ['appendLine l\\u2066x', 'append p\\x00', 'replace r\\u009b', 'debug d | arg\\x0d']);
    for (const line of written) assert.equal(hasActiveCharacters(line), false, line);
  });

  describe('activation makes the channel neutral for every feature', () => {
    const fake = sharedFake;
    const module = useSharedFake(() => import('../../../src/extension/extension'));
    const context = {
      subscriptions: [] as { dispose(): unknown }[],
      extension: { id: 'durability-lens.test', packageJSON: manifest },
      extensionUri: { toString: () => 'file:///ext', path: '/ext', scheme: 'file' },
      globalState: memento(),
      workspaceState: memento(),
      secrets: fake.secretStorage(),
      asAbsolutePath: (p: string) => path.join(root, p),
    };

    after(async () => {
      await module().deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      setJournalOwnerSession('cli');
    });

    it('a PRINT text written through the activated API reaches the channel neutralised', async () => {
      fake.reset();
      const api = await module().activate(context as never);
      api.output.info(`line 3: ${HOSTILE_PRINT}`);
      const entry = fake.outputLines.find((l) => l.startsWith('info line 3: '));
      assert.ok(entry, fake.outputLines.join('\n'));
      assert.equal(entry, `info ${logEntryText(`line 3: ${HOSTILE_PRINT}`)}`);
      assert.equal(hasActiveCharacters(entry), false);
      await api.featuresLoaded;
    });
  });
});

function memento() {
  const values = new Map<string, unknown>();
  return {
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => void (value === undefined ? values.delete(key) : values.set(key, value)),
    keys: () => [...values.keys()],
    setKeysForSync() {},
  };
}
