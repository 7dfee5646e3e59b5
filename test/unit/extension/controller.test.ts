// ConnectionManager + ProfilingController with a scripted fake `vscode` module against the TDS stand-in:
// connect (password to SecretStorage, status bar, database context for the language server), compare from the
// cursor on a development profile, run errors at their document line, a refused login, disconnect.
// Figures are the stand-in model's.
import { X509Certificate } from 'node:crypto';
import * as assert from 'node:assert/strict';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import type { PanelData, RunningView } from '../../../src/shared/webviewProtocol';
import type { DatabaseContextParams } from '../../../src/shared/protocol';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import { s1Script, serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeDocument as sharedFakeDocument } from './support/controllerFlow';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const fakeDocument = (text: string, uri = 'file:///w/s1.sql') => sharedFakeDocument(text, uri);

// One fake for the file: the modules under test are loaded once and keep the first `vscode` object they got.
const fake = sharedFake;

describe('extension controllers with a fake vscode (stand-in)', function () {
  this.timeout(120_000);
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let controller: ProfilingControllerType;
  const contexts: (DatabaseContextParams | null)[] = [];
  const panels: PanelData[] = [];
  const running: RunningView[] = [];
  let runsEnded = 0;
  const lines: string[] = [];
  const journal = new KeyValueRestoreJournal(new MemoryStore());

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../src/extension/profiling/profilingController');
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    const store = new ConnectionStore(fake.secretStorage() as never);
    manager = new ConnectionManager(store, fakeOutput(lines) as never, journal, async (c) => void contexts.push(c));
    controller = new ProfilingController(fakeOutput(lines) as never, manager, { show: async (d: PanelData) => void panels.push(d), showRunning: async (v: RunningView) => void running.push(v), runEnded: async () => void runsEnded++ } as never, journal);
  });

  after(async () => {
    uninstall?.();
    await h?.close();
  });

  it('connects: the password goes to secret storage, the status bar and the language server learn the setting', async () => {
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await manager.connect(), true);
    assert.equal(fake.statusText, `$(database) 127.0.0.1,${h.server.port} · lab · DISABLED`);
    assert.deepEqual(contexts.at(-1), { database: 'lab', delayedDurability: 'DISABLED' });
    assert.ok([...fake.secrets.values()].includes(h.secret), 'the password is in secret storage');
    assert.ok(!JSON.stringify(fake.settings).includes(h.secret), 'no password in settings');
  });

  it('with nothing selected profiles the whole script wherever the cursor is, then compares it on a development profile without a confirmation', async () => {
    const script = s1Script(30);
    const doc = fakeDocument(script);
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    // Nothing selected, the cursor on CREATE TABLE: the whole script runs (docs/selection.md), setup first.
    const createLine = script.split('\n').findIndex((l) => /CREATE TABLE/.test(l));
    await controller.profileText(doc as never, new Range(new Position(createLine, 0), new Position(createLine, 0)) as never, 'profile');
    assert.equal(panels.at(-1)?.kind, 'profile', JSON.stringify({ shown: fake.shown.map((m) => m.message), lines: lines.slice(-6) }));
    assert.equal(panels.at(-1)?.header.status, 'completed', JSON.stringify(panels.at(-1)?.header));
    const cursorLine = script.split('\n').findIndex((l) => /INSERT INTO/.test(l));
    const cursor = { line: cursorLine, character: 4 };
    const contextsBefore = contexts.length;
    await controller.profileText(doc as never, new Range(new Position(cursor.line, cursor.character), new Position(cursor.line, cursor.character)) as never, 'compare');
    // After the restore the language server is told the setting again (read back from the server).
    assert.equal(contexts.length, contextsBefore + 1);
    assert.deepEqual(contexts.at(-1), { database: 'lab', delayedDurability: 'DISABLED' });
    const data = panels.at(-1)!;
    assert.equal(data.kind, 'comparison');
    assert.equal(data.header.restore?.ok, true, JSON.stringify(data.header));
    assert.ok(data.standInLabel);
    // A development profile skips the switch confirmation, never the consent view: asked for the script (setup and
    // loop), and again for the comparison, which says how many runs it makes — the Switch and Compare dialog that
    // states the count is not shown on a development profile (compareCountConsent.test.ts).
    const consents = fake.shown.filter((s) => s.modal);
    assert.deepEqual(consents.map((s) => s.message.split(' — ')[0]), ['Durability Lens: confirm what runs', 'Durability Lens: confirm what runs']);
    assert.match(consents[1]!.detail!, /The parts above run 7 times in all: 2 modes × 3 measured run\(s\) \+ 1 warm-up run/);
    assert.ok(fake.progress.some((p) => p.startsWith('Switching DELAYED_DURABILITY: FORCED')), fake.progress.join(' | '));
    assert.deepEqual(await journal.list(), []);
    assert.equal((await serverState(h)).setting, 'DISABLED');
    assert.ok(lines.some((l) => l === 'info "standin" is marked as a development database: no confirmation asked.'));
  });

  it('on a shared database asks first (modal, naming database, setting and caveat); declining changes nothing', async () => {
    const connections = fake.settings['durabilityLens.connections'] as Record<string, unknown>[];
    fake.settings['durabilityLens.connections'] = [{ ...connections[0], development: false }];
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    assert.equal(await manager.connect(), true);
    const before = panels.length;
    fake.shown = [];
    fake.messageAnswers = [undefined]; // the user closes the dialog
    const script = 'INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;\n';
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    await controller.profileText(fakeDocument(script) as never, new Range(new Position(0, 0), new Position(0, 0)) as never, 'compare');
    const modal = fake.shown.find((s) => s.modal && s.message.startsWith('Switch'))!;
    assert.equal(modal.message, `Switch DELAYED_DURABILITY of lab on 127.0.0.1,${h.server.port} between DISABLED and FORCED to compare?`);
    assert.match(modal.detail!, /DELAYED_DURABILITY is DISABLED now/);
    assert.match(modal.detail!, /Data-loss caveat: /);
    assert.deepEqual(modal.items, ['Switch and Compare']);
    assert.equal(panels.length, before, 'declined: no panel');
    assert.deepEqual(await journal.list(), []);
    assert.equal((await serverState(h)).setting, 'DISABLED');
    fake.settings['durabilityLens.connections'] = connections;
  });

  it('puts a workload error at its document line and offers Go to Line', async () => {
    const doc = fakeDocument('SET NOCOUNT ON;\nSELECT 1;\nSELECT * FROM dbo.no_such_table;\n');
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    fake.shown = [];
    await controller.profileText(doc as never, new Range(new Position(0, 0), new Position(3, 0)) as never, 'profile');
    const diags = fake.diagnostics.get('file:///w/s1.sql') ?? [];
    assert.equal(diags.length, 1, JSON.stringify(diags));
    assert.equal(diags[0]!.line, 2);
    assert.match(diags[0]!.message, /^SQL error 208: /);
    const error = fake.shown.find((s) => s.kind === 'error')!;
    assert.match(error.message, /the workload failed at line 3 with SQL error 208: /);
    assert.deepEqual(error.items, ['Go to Line']);
  });

  it('Cancel in the progress notification: the run comes back cancelled, the panel says so and keeps the after-snapshot', async () => {
    const script = s1Script(2_000_000);
    const doc = fakeDocument(script);
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    const lastLine = script.split('\n').length - 1;
    fake.shown = [];
    fake.cancelWhenProgress = /^Running the workload/;
    await controller.profileText(doc as never, new Range(new Position(0, 0), new Position(lastLine, 0)) as never, 'profile');
    const data = panels.at(-1)!;
    assert.equal(data.kind, 'profile');
    assert.match(data.header.status, /^cancelled/);
    assert.ok(data.details && data.details.log.length > 0, 'log before/after from the after-snapshot');
    assert.ok(fake.shown.some((m) => m.message.startsWith('Durability Lens: the run was cancelled; the figures up to the cancel are shown')), JSON.stringify(fake.shown));
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the trace was dropped');
  });

  it('Cancel in the warm-up: no empty panel, and the message says no run was measured (not "the runs so far")', async () => {
    const script = s1Script(2_000_000);
    const doc = fakeDocument(script);
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    const lastLine = script.split('\n').length - 1;
    fake.shown = [];
    const panelsBefore = panels.length;
    const endedBefore = runsEnded;
    fake.cancelWhenProgress = /Running the workload/;
    // The profile from the test before is not a development one: confirm the switch.
    fake.messageAnswers = ['Switch and Compare'];
    await controller.profileText(doc as never, new Range(new Position(0, 0), new Position(lastLine, 0)) as never, 'compare');
    assert.equal(panels.length, panelsBefore, 'no panel for a comparison that measured nothing');
    assert.ok(runsEnded > endedBefore, 'the running view was ended');
    const message = fake.shown.find((m) => m.message.startsWith('Durability Lens: the comparison was cancelled'))?.message ?? '';
    assert.equal(message, 'Durability Lens: the comparison was cancelled in its warm-up: no run was measured and the original setting was restored.');
    assert.ok(!fake.shown.some((m) => /runs so far/.test(m.message)), JSON.stringify(fake.shown.map((m) => m.message)));
    const state = await serverState(h);
    assert.equal(state.setting, 'DISABLED');
    assert.deepEqual(state.eventSessions, []);
  });

  it('Cancel during a measured run: the run so far is shown as cancelled and the setting is restored; progress names the run, batch and GO iteration', async () => {
    const script = s1Script(2_000_000);
    const doc = fakeDocument(script);
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    const lastLine = script.split('\n').length - 1;
    fake.shown = [];
    fake.settings['durabilityLens.compare.warmup'] = false;
    running.length = 0;
    try {
      // Cancel once the sampler has reported live log flushes of the first measured run.
      fake.cancelWhenProgress = /^Run 1 of \d+: DISABLED — Running the workload: batch 1 of 1 — [\d.]+ (ms|s), [\d,]+ log flushes/;
      fake.messageAnswers = ['Switch and Compare'];
      await controller.profileText(doc as never, new Range(new Position(0, 0), new Position(lastLine, 0)) as never, 'compare');
    } finally {
      delete fake.settings['durabilityLens.compare.warmup'];
    }
    const data = panels.at(-1)!;
    assert.equal(data.kind, 'comparison', JSON.stringify({ shown: fake.shown.map((m) => m.message), progress: fake.progress.slice(-8), lines: lines.slice(-8) }));
    assert.equal(data.header.status, 'cancelled');
    assert.equal(data.header.restore?.ok, true, JSON.stringify(data.header));
    assert.ok(fake.shown.some((m) => m.message === 'Durability Lens: the comparison was cancelled; the 1 measured run(s) so far are shown and the original setting was restored.'), JSON.stringify(fake.shown.map((m) => m.message)));
    // The panel showed the run in progress (not the old result) with the sampler's live figures.
    const live = running.find((v) => v.logFlushes !== null && v.logFlushes > 0);
    assert.ok(live, JSON.stringify(running.slice(-3)));
    assert.match(live!.step, /^run 1 of \d+: DISABLED — Running the workload: batch 1 of 1$/);
    assert.ok(live!.elapsedMs > 0);
    const state = await serverState(h);
    assert.equal(state.setting, 'DISABLED');
    assert.deepEqual(state.eventSessions, []);
  });

  it('Switch Database tells the language server the new database and its setting', async () => {
    // The stand-in has no HAS_DBACCESS, so the database list falls back to typing the name.
    fake.inputAnswers.push('master');
    await manager.switchDatabase();
    assert.equal(manager.current?.database, 'master');
    assert.equal(contexts.at(-1)?.database, 'master');
    fake.inputAnswers.push('lab');
    await manager.switchDatabase();
    assert.deepEqual(contexts.at(-1), { database: 'lab', delayedDurability: 'DISABLED' });
  });

  it('a refused login says nothing changed and offers to re-enter the password', async () => {
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const secrets = fake.secretStorage();
    const store = new ConnectionStore(secrets as never);
    const other = new ConnectionManager(store, fakeOutput(lines) as never, journal, async () => undefined);
    const profile = store.read().profiles[0]!;
    await secrets.store((await import('../../../src/db/storedProfiles')).secretKey(profile), 'wrong');
    fake.shown = [];
    assert.equal(await other.connect(profile), false);
    const error = fake.shown.find((s) => s.kind === 'error')!;
    assert.match(error.message, /error 18456\). Nothing was changed on the server\./);
    assert.ok(error.items.includes('Re-enter Password'));
    other.dispose();
  });

  it('a COMMIT lens profiles the batch holding its transaction', async () => {
    const text = 'SET NOCOUNT ON;\nGO\nBEGIN TRAN;\nINSERT INTO dbo.SingleRowInsert DEFAULT VALUES;\nCOMMIT;\n';
    const doc = { ...fakeDocument(text, 'file:///w/tx.sql'), version: 4 };
    fake.documents = [doc];
    const before = panels.length;
    await controller.profileTarget(
      {
        uri: 'file:///w/tx.sql',
        version: 4,
        batchIndex: 1,
        batchRange: { start: { line: 2, character: 0 }, end: { line: 4, character: 7 } },
        repeat: 1,
        commit: { position: { line: 4, character: 0 }, range: { start: { line: 4, character: 0 }, end: { line: 4, character: 7 } }, transactionRange: { start: { line: 2, character: 0 }, end: { line: 4, character: 7 } }, delayedDurability: null, inLoop: false },
      },
      'profile',
    );
    assert.equal(panels.length, before + 1);
    const data = panels.at(-1)!;
    assert.equal(data.kind, 'profile');
    assert.equal(data.header.status, 'completed', JSON.stringify(data.header));
    assert.ok(lines.some((l) => l.startsWith('info Profile the transaction committed at line 5: batch 2 (lines 3–5)')), lines.slice(-5).join('\n'));
    fake.documents = [];
  });

  it('offers to restore what an unfinished comparison left switched, and restores it when asked', async () => {
    const { connect } = await import('../../../src/db/connect');
    const { alterDurabilitySql, newRestoreEntry } = await import('../../../src/profile');
    const admin = await connect(h.profile, h.secret, { role: 'monitor' });
    await admin.execute(alterDurabilitySql('lab', 'FORCED'));
    await admin.close();
    const server = `127.0.0.1,${h.server.port}`;
    await journal.put(newRestoreEntry({ server, database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    fake.shown = [];
    fake.messageAnswers = ['Restore Now'];
    await manager.offerPendingRestores(server);
    assert.equal(fake.shown[0]!.message, `A durability comparison did not finish restoring lab on ${server}. Restore DELAYED_DURABILITY to DISABLED now?`);
    assert.equal(fake.shown[0]!.modal, true);
    assert.equal((await serverState(h)).setting, 'DISABLED', JSON.stringify(fake.shown) + lines.slice(-3).join('\n'));
    assert.deepEqual(await journal.list(), []);
    assert.equal(fake.statusText, `$(database) ${server} · lab · DISABLED`);
  });

  it('editing the active profile in settings applies; removing it disconnects', async () => {
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const saved = fake.settings['durabilityLens.connections'] as Record<string, unknown>[];
    const store = new ConnectionStore(fake.secretStorage() as never);
    const other = new ConnectionManager(store, fakeOutput(lines) as never, journal, async () => undefined);
    await fake.secretStorage().store((await import('../../../src/db/storedProfiles')).secretKey(store.find('standin')!), h.secret);
    assert.equal(await other.connect(store.find('standin')!), true);
    fake.setSetting('durabilityLens.connections', [{ ...saved[0], development: false }]);
    assert.equal(other.current?.profile.development, false);
    fake.shown = [];
    const disconnected = new Promise<void>((resolve) => other.onDidChange((a) => a === null && resolve()));
    fake.setSetting('durabilityLens.connections', []);
    await disconnected;
    assert.equal(other.current, null);
    fake.settings['durabilityLens.connections'] = saved;
    other.dispose();
  });

  it('disconnect clears the status bar and tells the language server null; then a command says nothing was run', async () => {
    await manager.disconnect();
    assert.equal(contexts.at(-1), null);
    assert.equal(fake.statusText, '$(debug-disconnect) Durability Lens: not connected');
    fake.shown = [];
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    await controller.profileText(fakeDocument('SELECT 1;\n') as never, new Range(new Position(0, 0), new Position(0, 0)) as never, 'profile');
    assert.deepEqual(fake.shown.map((s) => [s.message, s.items]), [
      ['Durability Lens: Profile the whole document (line 1) needs a SQL Server connection. Nothing was run and no database setting was changed.', ['Connect', 'Add Connection']],
    ]);
  });
});

describe('extension connect: untrusted certificate (stand-in with its self-signed certificate)', function () {
  this.timeout(60_000);
  let uninstall: () => void;
  let h: StandinHarness;

  before(async () => {
    uninstall = installFakeVscode(fake);
    h = await startStandin();
  });
  after(async () => {
    uninstall?.();
    await h?.close();
  });

  it('offers to trust exactly this certificate (pinned by SHA-256) for this profile only, and connects verifying it', async () => {
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { secretKey } = await import('../../../src/db/storedProfiles');
    const { TRUST_CERTIFICATE_ACTION, CONFIRM_TRUST_ACTION } = await import('../../../src/extension/connections/certificateTrust');
    const other = { name: 'other', server: 'elsewhere', user: 'u', encrypt: true };
    fake.settings['durabilityLens.connections'] = [{ name: 'tls', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: true }, other];
    const store = new ConnectionStore(fake.secretStorage() as never);
    fake.secrets.set(secretKey(store.find('tls')!), h.secret);
    const lines: string[] = [];
    const manager = new ConnectionManager(store, fakeOutput(lines) as never, new KeyValueRestoreJournal(new MemoryStore()), async () => undefined);
    fake.shown = [];
    fake.messageAnswers = [TRUST_CERTIFICATE_ACTION(), CONFIRM_TRUST_ACTION()];
    const connected = await manager.connect(store.find('tls')!);
    assert.equal(connected, true, JSON.stringify(fake.shown) + lines.join('\n'));
    const error = fake.shown.find((s) => s.kind === 'error')!;
    assert.match(error.message, /TLS certificate is not trusted/);
    assert.match(error.message, /Nothing was changed on the server\./);
    assert.equal(error.items[0], TRUST_CERTIFICATE_ACTION());
    // The modal shows the certificate, with the fingerprint of the stand-in's certificate.
    const fingerprint = new X509Certificate(h.server.certPem).fingerprint256;
    const modal = fake.shown.find((s) => s.modal)!;
    assert.match(modal.detail!, new RegExp(`SHA-256: ${fingerprint}`));
    const saved = fake.settings['durabilityLens.connections'] as Record<string, unknown>[];
    assert.equal(saved[0]!.certificateSha256, fingerprint);
    assert.equal(saved[0]!.trustServerCertificate, false, 'validation is not turned off for good');
    assert.deepEqual(saved[1], other, 'other profiles untouched');
    assert.ok(lines.some((l) => /encrypted, pinned certificate fingerprint/.test(l)), lines.join('\n'));
    assert.ok(!lines.some((l) => /encryption verified|certificate verified/.test(l)), lines.join('\n'));
    manager.dispose();
  });

  it('a pinned profile refuses another certificate before the login is sent', async () => {
    const { connect } = await import('../../../src/db/connect');
    const { ConnectionFailure } = await import('../../../src/db/errors');
    let logins = 0;
    const login = h.engine.login.bind(h.engine);
    h.engine.login = (request) => {
      logins++;
      return login(request);
    };
    const wrongPin = Array.from({ length: 32 }, () => 'AB').join(':');
    const profile = { server: '127.0.0.1', port: h.server.port, database: 'lab', authentication: { type: 'sql' as const, user: 'sa' }, encrypt: true, trustServerCertificate: false, pinnedCertificateSha256: wrongPin };
    await assert.rejects(connect(profile, h.secret, { role: 'monitor' }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'certificate-changed');
      assert.equal(err.info.offerTrustServerCertificate, false);
      assert.match(err.info.message, /different certificate/);
      return true;
    });
    assert.equal(logins, 0, 'the login (with the password) reached the server');
    // The right pin connects and says so.
    const right = new X509Certificate(h.server.certPem).fingerprint256;
    const session = await connect({ ...profile, pinnedCertificateSha256: right }, h.secret, { role: 'monitor' });
    assert.equal(session.encrypted, true);
    assert.equal(session.certificate, 'pinned');
    await session.close();
  });
});
