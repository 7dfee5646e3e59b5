// The extension in a pseudo-locale (every message of the bundle wrapped in [brackets], as vscode.l10n.t does with a
// translator's bundle; test/support/pseudoLocale.ts), driven through the fake vscode against the stand-in: the
// notifications, modal dialogs, their buttons and the quick picks show no unbracketed English, and a button chosen in
// the translated language still does what it says (the label is compared with the same l10n.t call). The agent tools'
// confirmation is translated with its words escaped. Figures are the stand-in model's.
import * as assert from 'node:assert/strict';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import { formatMessage, useTranslator } from '../../../src/extension/l10n';
import type { PanelData, RunningView } from '../../../src/shared/webviewProtocol';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import { serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';
import { isPseudo, pseudoBundle, translatorFor } from '../../support/pseudoLocale';
import { fakeOutput, installFakeVscode, sharedFake, type Shown } from './support/fakeVscode';
import { fakeDocument } from './support/controllerFlow';

const fake = sharedFake;
const pseudo = pseudoBundle();
const tr = translatorFor(pseudo);
const PSEUDO_URI = 'file:///w/pseudo.sql';

/** "kind: text" of every message or button shown that is not pseudo-translated. */
function unlocalised(shown: readonly Shown[]): string[] {
  return shown.flatMap((s) => [
    ...(isPseudo(s.message) ? [] : [`${s.kind} message: ${s.message.slice(0, 80)}`]),
    ...s.items.filter((i) => !/^\[.*\]$/s.test(i)).map((i) => `${s.kind} button: ${i}`),
  ]);
}

describe('extension in a pseudo-locale: messages, buttons and quick picks come from the bundle (fake vscode, stand-in)', function () {
  this.timeout(120_000);
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let controller: ProfilingControllerType;
  const lines: string[] = [];
  const journal = new KeyValueRestoreJournal(new MemoryStore());
  let picked: string[][] = [];

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    useTranslator(tr);
    h = await startStandin();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../src/extension/profiling/profilingController');
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: false }];
    const store = new ConnectionStore(fake.secretStorage() as never);
    await fake.secretStorage().store((await import('../../../src/db/storedProfiles')).secretKey(store.read().profiles[0]!), h.secret);
    manager = new ConnectionManager(store, fakeOutput(lines) as never, journal, async () => undefined);
    controller = new ProfilingController(fakeOutput(lines) as never, manager, { show: async (_d: PanelData) => undefined, showRunning: async (_v: RunningView) => undefined, runEnded: async () => undefined } as never, journal);
  });
  after(async () => {
    useTranslator(formatMessage);
    manager?.dispose();
    delete fake.settings['durabilityLens.connections'];
    fake.secrets.clear();
    fake.reset();
    uninstall?.();
    await h?.close();
  });
  beforeEach(() => {
    fake.shown = [];
    fake.autoConsent = false;
    picked = [];
  });
  const labelOf = (i: string | { label: string }) => (typeof i === 'string' ? i : i.label);
  const pick = (label: string) => (items: (string | { label: string })[]) => (picked.push(items.map(labelOf)), items.find((i) => labelOf(i) === label));

  it('connect: the quick pick\'s placeholder and its "Add Connection" item are translated', async () => {
    fake.quickPickAnswers.push(pick('standin'));
    assert.equal(await manager.connect(), true);
    assert.equal(fake.quickPickPlaceholders.at(-1), '[Connect Durability Lens to…]');
    assert.deepEqual(picked[0], ['standin', '[$(add) Add Connection…]']);
  });

  it('the status bar menu offers translated choices, and the translated "Switch Database" switches', async () => {
    // The database is picked from the server's list, or typed when the list cannot be read.
    const switchTo = async (database: string) => {
      fake.quickPickAnswers = [pick('[Switch Database]'), pick(database)];
      fake.inputAnswers = [database];
      await manager.connectionMenu();
    };
    await switchTo('master');
    assert.deepEqual(picked[0], ['[Switch Database]', '[Switch Connection]', '[Disconnect]']);
    assert.equal(manager.current?.database, 'master', 'the translated choice was acted on');
    await switchTo('lab');
    assert.equal(manager.current?.database, 'lab');
  });

  it('a comparison on a shared database: the consent view and the switch dialog, message, detail and buttons, all translated; declined, nothing changes', async () => {
    fake.messageAnswers = [tr('Run'), undefined];
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    await controller.profileText(fakeDocument('INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;\n', PSEUDO_URI) as never, new Range(new Position(0, 0), new Position(0, 0)) as never, 'compare');
    assert.deepEqual(unlocalised(fake.shown), []);
    const [consent, switchDialog] = fake.shown;
    assert.match(consent!.message, /^\[Durability Lens: confirm what runs — this changes data or schema on database lab\. Nothing has run yet\.\]$/);
    assert.deepEqual(consent!.items, ['[Run]', '[Review in Editor]']);
    assert.equal(switchDialog!.message, `[Switch DELAYED_DURABILITY of lab on 127.0.0.1,${h.server.port} between DISABLED and FORCED to compare?]`);
    assert.deepEqual(switchDialog!.items, ['[Switch and Compare]']);
    for (const line of ['[Database: lab, DELAYED_DURABILITY is DISABLED now.]', '[Statements (from a separate monitor connection):]']) assert.ok(switchDialog!.detail!.includes(line), line);
    assert.equal((await serverState(h)).setting, 'DISABLED');
  });

  it('the restore prompt: translated message and buttons, and the translated "Restore Now" restores', async () => {
    const { connect } = await import('../../../src/db/connect');
    const { alterDurabilitySql, newRestoreEntry } = await import('../../../src/profile');
    const admin = await connect(h.profile, h.secret, { role: 'monitor' });
    await admin.execute(alterDurabilitySql('lab', 'FORCED'));
    await admin.close();
    const server = `127.0.0.1,${h.server.port}`;
    await journal.put(newRestoreEntry({ server, database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    fake.messageAnswers = [tr('Restore Now')];
    await manager.offerPendingRestores(server);
    assert.deepEqual(fake.shown[0]!.items, ['[Restore Now]', '[Later]']);
    assert.deepEqual(unlocalised(fake.shown), []);
    assert.equal((await serverState(h)).setting, 'DISABLED', 'the translated button restored the setting');
    assert.deepEqual(await journal.list(), []);
  });

  it('a refused login: translated buttons; not connected, a run asks to connect and the translated "Add Connection" runs the command', async () => {
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const secrets = fake.secretStorage();
    const store = new ConnectionStore(secrets as never);
    const other = new ConnectionManager(store, fakeOutput(lines) as never, journal, async () => undefined);
    const profile = store.read().profiles[0]!;
    const key = (await import('../../../src/db/storedProfiles')).secretKey(profile);
    const good = await secrets.get(key);
    await secrets.store(key, 'wrong');
    try {
      assert.equal(await other.connect(profile), false);
    } finally {
      await secrets.store(key, good!);
      other.dispose();
    }
    const error = fake.shown.find((s) => s.kind === 'error')!;
    assert.deepEqual(error.items, ['[Re-enter Password]', '[Open Settings]', '[Show Output]']);
    await manager.disconnect();
    fake.shown = [];
    fake.messageAnswers = [tr('Add Connection')];
    fake.commandsRun = [];
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    await controller.profileText(fakeDocument('SELECT 1;\n', PSEUDO_URI) as never, new Range(new Position(0, 0), new Position(0, 0)) as never, 'profile');
    assert.deepEqual(fake.shown.map((s) => s.items), [['[Connect]', '[Add Connection]']]);
    assert.deepEqual(unlocalised(fake.shown), []);
    assert.ok(fake.commandsRun.includes('durabilityLens.addConnection'), 'the translated button was acted on');
  });

  it('mssql not installed: the translated fallback button adds a connection', async () => {
    const { MssqlConnectionFlow } = await import('../../../src/extension/mssql/mssqlCommands');
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    fake.extensions.clear();
    fake.commandsRun = [];
    fake.messageAnswers = [tr('Add Connection')];
    const flow = new MssqlConnectionFlow({ store: new ConnectionStore(fake.secretStorage() as never), connections: { connect: async () => false } as never, output: fakeOutput(lines) as never, extensionId: 'x.y' });
    assert.equal(await flow.useEditorConnection(), false);
    assert.deepEqual(fake.shown.map((s) => s.items), [['[Add Connection]']]);
    assert.deepEqual(unlocalised(fake.shown), []);
    assert.ok(fake.commandsRun.includes('durabilityLens.addConnection'));
  });

  it('the agent tools\' confirmation and invocation line are translated; a translation\'s Markdown stays text', async () => {
    const { runConfirmation, runInvocationMessage } = await import('../../../src/extension/lm/runConfirmation');
    const compare = { modes: ['DISABLED', 'FORCED'], repetitions: 3, warmup: true, total: 7 };
    const input = { mode: 'compare' as const, path: 'w/x.sql', startLine: 3, compare, connection: { database: 'lab', serverLabel: 'sql1' } };
    const c = runConfirmation(input);
    assert.equal(c.title, '[Compare DELAYED_DURABILITY modes?]');
    assert.match(c.message.value, /^\\\[Durability Lens will run w\/x\\\.sql \\\(\\\[the batch at line 3\\\]\\\) 7 times \\\(\\\[DISABLED, FORCED × 3 \\\+ 1 warm\\-up\\\]\\\) on database \*\*lab\*\* on \*\*sql1\*\*, switching its DELAYED\\_DURABILITY between DISABLED and FORCED/);
    assert.match(c.message.value, /choose \*\*\\\[Run\\\]\*\*/);
    assert.equal(runInvocationMessage('profile', 'x.sql'), '[Profiling x.sql]');
    // A translator that writes "undefined" for a placeholder it has no argument for (the test fake's once did): the
    // template's placeholders still reach appendTemplate.
    useTranslator((m, ...a) => m.replace(/\{(\d+)\}/g, (_w, i: string) => String(a[Number(i)])));
    try {
      assert.match(runConfirmation(input).message.value, /on database \*\*lab\*\* on \*\*sql1\*\*/);
      assert.doesNotMatch(runConfirmation(input).message.value, /undefined/);
    } finally {
      useTranslator(tr);
    }
    const hostile = 'Durability Lens will run {0} ({1}) {2} times ({3}) on database {4} on {5}, switching its DELAYED_DURABILITY between {6} and {7} and restoring it afterwards.';
    useTranslator(translatorFor({ ...pseudo, [hostile]: '[click](command:workbench.action.terminal.new) ![i](https://x/y.png) <b>{4}</b> {9}' }));
    try {
      const value = runConfirmation(input).message.value;
      assert.doesNotMatch(value, /\]\(command:|!\[i\]\(|<b>/);
      assert.match(value, /\\\[click\\\]\\\(command:/);
      assert.match(value, /\\<b\\>\*\*lab\*\*\\<\/b\\> \\\{9\\\}/, 'the value is still placed and bold; an invented placeholder stays literal');
    } finally {
      useTranslator(tr);
    }
  });
});

describe('exports in a pseudo-locale: the same English bytes as in English', () => {
  it('Markdown, CSV and JSON of a comparison, a profile and a trace do not change with the display language', async () => {
    const { exportText } = await import('../../../src/extension/panel/panelData');
    const { comparisonFixture, profileFixture } = await import('../webview/fixtureModel');
    const formats = ['markdown', 'csv', 'json'] as const;
    const all = () => [comparisonFixture(), profileFixture()].flatMap((d) => formats.map((f) => exportText(d, f)));
    const english = all();
    useTranslator(tr);
    try {
      const translated = all();
      assert.equal(translated.length, english.length);
      translated.forEach((text, i) => assert.equal(text, english[i], `export ${i} changed with the display language`));
      // The pseudo-locale is active: a message shown to the user would be bracketed.
      const { l10n } = await import('../../../src/extension/l10n');
      assert.equal(l10n.t('Copy GRANTs'), '[Copy GRANTs]');
    } finally {
      useTranslator(formatMessage);
    }
  });
});
