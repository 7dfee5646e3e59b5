// A name from a server, a file or settings.json inside a label that renders VS Code's theme icons (`$(name)`) shows as
// written, not as icons: code-lens titles, status-bar texts, language-status texts, quick-pick labels/descriptions/
// details and Window-progress titles escape it (shared/visibleText.ts iconLabelField); our own icons stay icons.
import * as assert from 'node:assert/strict';
import { escapeThemeIcons, iconLabelField } from '../../../src/shared/visibleText';
import { NOTIFICATION_LINK } from '../../../src/shared/notificationText';
import { buildCodeLenses } from '../../../src/server/codeLenses';
import { analyze } from '../../../src/tsql';
import { describeEntry } from '../../../src/extension/history/runHistory';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { makeRun } from '../report/runFixture';
import { ok } from '../../../src/probes/measurement';
import { buildTopLogDocument } from '../../../src/report/topLog';
import { history as qsHistory, queryRow } from '../probes/topLogFixtures';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { DatabaseContextParams } from '../../../src/shared/protocol';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';
import { FakeMssql } from './support/fakeMssql';

/**
 * How VS Code shows a label with icons (renderLabelWithIcons, src/vs/base/browser/ui/iconLabel/iconLabels.ts): each
 * `$(name)` or `$(name~modifier)` becomes an icon (here «icon:name»); a backslash before it makes it the text `$(name)`.
 */
function shownLabel(label: string): string {
  return label.replace(/(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g, (_m, escaped: string | undefined, name: string) => (escaped ? `$(${name})` : `«icon:${name}»`));
}

const HOSTILE_NAME = 'p$(zap)$(sync~spin)\\$(alert)';

describe('names in labels that render theme icons', () => {
  it('escapeThemeIcons: every $(name) shows as written, an escaped one too; other $( text is left alone', () => {
    for (const text of [HOSTILE_NAME, '$(zap)', 'a$(b c)', '$()', 'x$(', 'price $(5)', '\\\\$(zap)', '$(a-b~spin)x']) {
      assert.equal(shownLabel(escapeThemeIcons(text)), text, text);
    }
    assert.equal(escapeThemeIcons('a$(b c) $(ok)'), 'a$(b c) \\$(ok)', 'only icon syntax gets a backslash (no stray one elsewhere)');
    assert.equal(shownLabel(`$(database) ${iconLabelField(HOSTILE_NAME)}`), `«icon:database» ${HOSTILE_NAME}`, 'our own icon stays an icon');
  });

  it('iconLabelField: also one line, controls and bidi visible', () => {
    assert.equal(iconLabelField('a$(zap)\nb\u202e'), 'a\\$(zap)\\x0ab\\u202e');
  });

  it('code lens titles show a procedure\'s name as written', () => {
    const text = [
      `CREATE PROCEDURE dbo.[${HOSTILE_NAME}] @n int AS`,
      'BEGIN',
      '  DECLARE @i int = 0;',
      '  WHILE @i < @n BEGIN INSERT dbo.t VALUES (@i); SET @i += 1; END',
      'END',
    ].join('\n');
    const titles = buildCodeLenses(analyze(text), 'file:///w/p.sql', 1).map((l) => l.command!.title);
    assert.deepEqual(titles.map(shownLabel).sort(), [`Compare durability…`, `Profile EXEC dbo.${HOSTILE_NAME}…`, `Profile this loop via EXEC dbo.${HOSTILE_NAME}…`].sort());
  });

  it('code lens titles keep a bracketed name on one line', () => {
    const titles = buildCodeLenses(analyze('CREATE PROCEDURE [a\nEXEC b] AS SELECT 1;'), 'file:///w/p.sql', 1).map((l) => l.command!.title);
    assert.ok(titles.includes('Profile EXEC a\\x0aEXEC b'), titles.join(' | '));
  });

  it('the run history quick pick shows the file, database and server names of an entry as written', () => {
    const run = makeRun({ mode: null });
    const data = panelDataFromRun(run, 'sql1,1433', new Date('2026-03-04T05:06:07.890Z'));
    const panel = { ...data, header: { ...data.header, workload: 'load$(zap).sql: batch 1 (lines 1–3)' } };
    const item = describeEntry({ id: 'x', kind: data.kind, title: data.title, createdAt: data.createdAt, database: 'db$(flame)', server: 'sql$(cloud)', status: 'completed', panel, runs: [run] });
    assert.equal(shownLabel(item.label), `Profile: load$(zap).sql · ${data.model.columns[0]}`);
    assert.equal(shownLabel(item.detail), 'sql$(cloud) — database db$(flame) — completed');
    const unnamed = describeEntry({ id: 'y', kind: data.kind, title: data.title, createdAt: data.createdAt, database: 'db$(flame)\nx', server: null, status: 'failed', panel: data, runs: [run] });
    assert.equal(shownLabel(unnamed.label), `Profile: db$(flame)\\x0ax · ${data.model.columns[0]}`);
  });

  describe('connection names (stand-in database and settings.json profile with $(…) in their names)', function () {
    this.timeout(60_000);
    const fake = sharedFake;
    /** A database name as a server may hold it: icon syntax, and a link that a linked-text label would render. */
    const DATABASE = 'sales$(warning)[Grant](command:workbench.action.terminal.sendSequence)';
    const PROFILE = 'prod$(pass-filled)';
    /** The name as a translated message (l10n.t) shows it: its links opened up (shared/notificationText.ts). */
    const DATABASE_IN_MESSAGE = DATABASE.replace('](', '] (');
    let uninstall: () => void;
    let h: StandinHarness;
    let manager: ConnectionManagerType;
    const contexts: (DatabaseContextParams | null)[] = [];
    const lines: string[] = [];

    before(async () => {
      fake.reset();
      uninstall = installFakeVscode(fake);
      h = await startStandin({ databases: [{ name: DATABASE, delayedDurability: 'ALLOWED' }] });
      const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
      const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
      fake.settings['durabilityLens.connections'] = [{ name: PROFILE, server: '127.0.0.1', port: h.server.port, database: DATABASE, user: 'sa', encrypt: false, development: true }];
      manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), fakeOutput(lines) as never, new KeyValueRestoreJournal(new MemoryStore()), async (c) => void contexts.push(c));
    });

    after(async () => {
      await manager?.disconnect();
      manager?.dispose();
      uninstall?.();
      await h?.close();
    });

    it('the profile quick pick and the status bar show the profile and database names as written', async () => {
      let items: { label: string; description?: string }[] = [];
      fake.quickPickAnswers.push((shown) => ((items = shown), shown.find((i) => i.label.startsWith('prod'))));
      fake.inputAnswers.push(h.secret);
      assert.equal(await manager.connect(), true);
      const profile = items.find((i) => i.label.startsWith('prod'))!;
      assert.equal(shownLabel(profile.label), PROFILE);
      assert.equal(shownLabel(profile.description!), `127.0.0.1,${h.server.port} · ${DATABASE}`);
      assert.equal(shownLabel(items.at(-1)!.label), '«icon:add» Add Connection…', 'our own icon stays');
      assert.equal(shownLabel(fake.statusText), `«icon:database» 127.0.0.1,${h.server.port} · ${DATABASE} · ALLOWED`);
      assert.deepEqual(contexts.at(-1), { database: DATABASE, delayedDurability: 'ALLOWED' }, 'the language server gets the name unchanged');
    });

    /** The stand-in has no HAS_DBACCESS: the next Switch Database reads its list (lab and DATABASE) from this session. */
    function listDatabasesOnce(): void {
      const real = manager.connectionSource.bind(manager);
      manager.connectionSource = () => {
        manager.connectionSource = real;
        const source = real()!;
        return { ...source, open: async () => ({ query: async () => [{ name: DATABASE }, { name: 'lab' }], close: async () => undefined }) } as never;
      };
    }

    it('Switch Database lists the server\'s names as written and connects to the one picked, unchanged', async () => {
      let items: { label: string; description?: string }[] = [];
      listDatabasesOnce();
      fake.quickPickAnswers.push((shown) => ((items = shown), shown.find((i) => shownLabel(i.label) === 'lab')));
      await manager.switchDatabase();
      assert.ok(items.some((i) => shownLabel(i.label) === DATABASE && i.description === 'current'), JSON.stringify({ items, lines }));
      assert.equal(manager.current?.database, 'lab');
      listDatabasesOnce();
      fake.quickPickAnswers.push((shown) => shown.find((i) => shownLabel(i.label) === DATABASE));
      await manager.switchDatabase();
      assert.equal(manager.current?.database, DATABASE, 'the picked label maps back to the database\'s own name');
      assert.equal(shownLabel(fake.statusText), `«icon:database» 127.0.0.1,${h.server.port} · ${DATABASE} · ALLOWED`);
    });

    it('the mssql connection quick pick shows mssql\'s saved connection names as written', async () => {
      const { MssqlConnectionFlow } = await import('../../../src/extension/mssql/mssqlCommands');
      const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
      fake.settings['mssql.connections'] = [
        { id: 'c1', profileName: 'rep$(zap)', server: 'sql$(cloud)', database: 'rep', user: 'r', authenticationType: 'SqlLogin' },
        { id: 'c2', server: 'srv$(flame)', database: 'db$(bell)\n', user: 'r' },
      ];
      new FakeMssql(fake, { version: '1.35.0' }).install();
      let items: { label: string; detail?: string }[] = [];
      fake.quickPickAnswers.push((shown) => void (items = shown));
      try {
        const flow = new MssqlConnectionFlow({ store: new ConnectionStore(fake.secretStorage() as never), connections: manager, output: fakeOutput(lines) as never, extensionId: 'durability-lens.test' });
        assert.equal(await flow.pick(), false);
      } finally {
        delete fake.settings['mssql.connections'];
        fake.extensions.clear();
      }
      assert.deepEqual(items.map((i) => [shownLabel(i.label), shownLabel(i.detail!)]), [['rep$(zap)', 'sql$(cloud) · SqlLogin'], ['srv$(flame) / db$(bell)\\x0a', 'srv$(flame) · SqlLogin']]);
    });

    it('Heaviest Log Writers\' Window progress ("Looking for … in the workspace") shows the routine name as written', async () => {
      const { HeaviestLogWriters } = await import('../../../src/extension/topLog/heaviestLogWriters');
      const doc = buildTopLogDocument(qsHistory({ rows: ok([queryRow({ objectName: 'load$(sync~spin)', queryHash: '0xBA841451D9E93735' })]) }), { standIn: true });
      const view = new HeaviestLogWriters(manager, fakeOutput(lines) as never, {} as never);
      (view as unknown as { loaded: unknown }).loaded = { doc, serverLabel: 'lab' };
      fake.progressTitles = [];
      try {
        // The fake has no workspace search: open() stops after its progress; the title is what is under test.
        await view.open(doc.rows[0]!).catch(() => undefined);
      } finally {
        view.dispose();
      }
      const titles = fake.progressTitles.filter((t) => t.startsWith('Looking for'));
      assert.deepEqual(titles.map(shownLabel), [`Looking for ${doc.rows[0]!.objectLabel} in the workspace…`]);
      assert.match(doc.rows[0]!.objectLabel, /load\$\(sync~spin\)/);
    });

    it('the language status item shows the database name as written, with no icon and no link in it', async () => {
      const { DurabilityLanguageStatus } = await import('../../../src/extension/language/languageStatus');
      const status = new DurabilityLanguageStatus();
      try {
        status.setState('running');
        status.setDatabase({ database: DATABASE, delayedDurability: 'ALLOWED' });
        const item = fake.languageStatusItems.at(-1)!;
        // Its detail renders `$(name)` as icons and `[label](command:…)` as links (VS Code's language status hover).
        const detail = String(item.detail);
        assert.equal(shownLabel(detail), 'sales$(warning)[Grant] (command:workbench.action.terminal.sendSequence): DELAYED_DURABILITY = ALLOWED');
        assert.equal(detail.match(NOTIFICATION_LINK), null, detail);
      } finally {
        status.dispose();
      }
    });

    it('the recording and log-flush trace status items show the database name as written', async () => {
      const { RecordingWindow } = await import('../../../src/extension/recording/recordingWindow');
      const { AdhocTrace } = await import('../../../src/extension/recording/adhocTrace');
      const deps = { output: fakeOutput(lines) as never, connections: manager, panels: { show: async () => undefined } as never };
      const recording = new RecordingWindow(deps);
      try {
        assert.equal(await recording.start(), true, lines.slice(-3).join('\n'));
        assert.match(shownLabel(fake.statusItems.get('durabilityLens.recording') ?? ''), new RegExp(`^«icon:record» Recording ${escapeRegExp(DATABASE_IN_MESSAGE)} \\d+:\\d\\d`));
      } finally {
        await recording.stop(false);
        recording.dispose();
      }
      const trace = new AdhocTrace(deps);
      try {
        assert.equal(await trace.start(), true, lines.slice(-3).join('\n'));
        const [id, text] = [...fake.statusItems].find(([k, v]) => k !== 'durabilityLens.recording' && v !== '')!;
        assert.equal(shownLabel(text), `«icon:record» Log-flush trace: ${DATABASE_IN_MESSAGE}`, id);
      } finally {
        await trace.stop(false);
        trace.dispose();
      }
    });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
