// "Use the mssql Connection of This Editor" against a test double of the mssql extension (its Connection Sharing
// commands, support/fakeMssql.ts) and the fake `vscode`: consent given (saved with its secret and connected to the
// stand-in), the password mssql keeps to itself asked once, consent refused, mssql missing / too old / retired, an
// editor without a connection, the picker on an mssql without getConnectionString, and integrated security offered
// as NTLM with a password.
import * as assert from 'node:assert/strict';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { MssqlConnectionFlow as FlowType } from '../../../src/extension/mssql/mssqlCommands';
import type { StoredProfile } from '../../../src/db/storedProfiles';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { FakeMssql, MSSQL_PROMPT } from './support/fakeMssql';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const OUR_ID = 'durability-lens.durability-lens';

describe('the mssql connection through its Connection Sharing API (fake mssql extension)', function () {
  this.timeout(60_000);
  const fake = sharedFake;
  let uninstall: () => void;
  let h: StandinHarness;
  let lines: string[];
  let Flow: typeof FlowType;
  let ConnectionStore: typeof import('../../../src/extension/connections/connectionStore').ConnectionStore;
  let manager: ConnectionManagerType;
  const connected: StoredProfile[] = [];
  const recordingConnections = { connect: async (p?: StoredProfile) => (connected.push(p!), true) };

  const flow = (connections: { connect(p?: StoredProfile): Promise<boolean> } = recordingConnections) =>
    new Flow({ store: new ConnectionStore(fake.secretStorage() as never), connections: connections as never, output: fakeOutput(lines) as never, extensionId: OUR_ID });
  const saved = (): StoredProfile[] => (fake.settings['durabilityLens.connections'] as StoredProfile[] | undefined) ?? [];
  const connectionString = (extra = '') => `Data Source=127.0.0.1,${h.server.port};Initial Catalog=lab;User ID=sa;Encrypt=True;Trust Server Certificate=True${extra}`;

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    ({ MssqlConnectionFlow: Flow } = await import('../../../src/extension/mssql/mssqlCommands'));
    ({ ConnectionStore } = await import('../../../src/extension/connections/connectionStore'));
  });
  after(async () => {
    manager?.dispose();
    fake.reset();
    delete fake.settings['durabilityLens.connections'];
    delete fake.settings['mssql.connections'];
    fake.secrets.clear();
    uninstall?.();
    await h?.close();
  });
  beforeEach(() => {
    fake.reset();
    fake.settings['durabilityLens.connections'] = [];
    delete fake.settings['mssql.connections'];
    fake.secrets.clear();
    lines = [];
    connected.length = 0;
  });

  it('consent given: mssql asks once, the connection is saved with its password in secret storage and connects to the server', async () => {
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), fakeOutput(lines) as never, new KeyValueRestoreJournal(new MemoryStore()), async () => undefined);
    fake.settings['mssql.connections'] = [{ id: 'c1', profileName: 'lab on stand-in', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', authenticationType: 'SqlLogin' }];
    const mssql = new FakeMssql(fake, { activeConnectionId: 'c1', connectionStrings: { c1: connectionString(`;Password=${h.secret}`) } }).install();
    fake.messageAnswers = ['Approve'];
    assert.equal(await flow(manager).useEditorConnection(), true, lines.join('\n'));
    const prompts = fake.shown.filter((s) => s.message === MSSQL_PROMPT(OUR_ID));
    assert.equal(prompts.length, 1);
    assert.deepEqual(prompts[0]!.items, ['Approve', 'Deny']);
    assert.equal(manager.current?.profile.name, 'lab on stand-in (mssql)');
    assert.equal(manager.current?.database, 'lab');
    const profile = saved().find((p) => p.name === 'lab on stand-in (mssql)')!;
    assert.equal(profile.user, 'sa');
    assert.equal(profile.encrypt, true);
    assert.equal(profile.development, false);
    assert.ok(!JSON.stringify(saved()).includes(h.secret), 'no password in settings');
    assert.ok([...fake.secrets.values()].includes(h.secret), 'the password is in secret storage');
    // Both commands were called with our extension id (mssql remembers its permission per id).
    assert.deepEqual(mssql.calls.map((c) => [c.command, c.args[0]]), [['mssql.connectionSharing.getActiveEditorConnectionId', OUR_ID], ['mssql.connectionSharing.getConnectionString', OUR_ID]]);
    // A second use asks mssql nothing more.
    fake.shown = [];
    await manager.disconnect();
    assert.equal(await flow(manager).useEditorConnection(), true);
    assert.equal(fake.shown.filter((s) => s.message === MSSQL_PROMPT(OUR_ID)).length, 0);
  });

  it('a password mssql keeps to itself is asked once, with why, and goes to secret storage', async () => {
    new FakeMssql(fake, { activeConnectionId: 'c1', connectionStrings: { c1: connectionString() } }).install();
    fake.messageAnswers = ['Approve'];
    fake.inputAnswers = ['typed-secret'];
    assert.equal(await flow().useEditorConnection(), true);
    assert.equal(connected.length, 1);
    assert.equal(connected[0]!.authenticationType, 'sql');
    assert.ok([...fake.secrets.values()].includes('typed-secret'));
    // Escape at the password prompt: nothing saved, nothing connected.
    fake.reset();
    fake.settings['durabilityLens.connections'] = [];
    new FakeMssql(fake, { activeConnectionId: 'c1', connectionStrings: { c1: connectionString() } }).install();
    fake.messageAnswers = ['Approve'];
    fake.inputAnswers = [undefined];
    connected.length = 0;
    assert.equal(await flow().useEditorConnection(), false);
    assert.equal(connected.length, 0);
    assert.deepEqual(saved(), []);
  });

  it('consent refused: mssql\'s own words, nothing saved or connected, and the way to change it in mssql', async () => {
    new FakeMssql(fake, { activeConnectionId: 'c1', connectionStrings: { c1: connectionString(';Password=x') } }).install();
    fake.messageAnswers = ['Deny', 'Change mssql Permission'];
    assert.equal(await flow().useEditorConnection(), false);
    const warning = fake.shown.find((s) => s.kind === 'warning')!;
    assert.match(warning.message, /the mssql extension did not share its connections \(Connection sharing permission denied for extension: 'durability-lens\.durability-lens'/);
    assert.match(warning.message, /Nothing was changed/);
    assert.deepEqual(warning.items, ['Change mssql Permission', 'Add Connection']);
    assert.ok(fake.commandsRun.includes('mssql.connectionSharing.editConnectionSharingPermissions'));
    assert.equal(connected.length, 0);
    assert.deepEqual(saved(), []);
    // A dismissed prompt (no answer) is PERMISSION_REQUIRED: the same way out, and mssql asks again next time.
    fake.shown = [];
    fake.messageAnswers = [undefined, undefined];
    const mssql = new FakeMssql(fake, { activeConnectionId: 'c1' }).install();
    assert.equal(await flow().useEditorConnection(), false);
    assert.match(fake.shown.find((s) => s.kind === 'warning')!.message, /permission is required/);
    assert.equal(mssql.permissions.size, 0);
  });

  it('mssql not installed: says so, changes nothing and offers Add Connection', async () => {
    fake.messageAnswers = ['Add Connection'];
    assert.equal(await flow().useEditorConnection(), false);
    const warning = fake.shown.find((s) => s.kind === 'warning')!;
    assert.match(warning.message, /the mssql extension \(ms-mssql\.mssql\) is not installed/);
    assert.deepEqual(warning.items, ['Add Connection']);
    assert.ok(fake.commandsRun.includes('durabilityLens.addConnection'));
    assert.equal(connected.length, 0);
  });

  it('an mssql too old for connection sharing, or one that retired it, offers Import mssql Connections instead', async () => {
    new FakeMssql(fake, { version: '1.30.0' }).install();
    fake.messageAnswers = ['Import mssql Connections'];
    assert.equal(await flow().pick(), false);
    assert.match(fake.shown[0]!.message, /this mssql extension \(1\.30\.0\) offers no connection sharing \(it needs 1\.34\.0 or later/);
    assert.ok(fake.commandsRun.includes('durabilityLens.importMssqlConnections'));
    fake.reset();
    new FakeMssql(fake, { version: '1.60.0', registerCommands: false }).install();
    assert.equal(await flow().useEditorConnection(), false);
    assert.match(fake.shown[0]!.message, /\(1\.60\.0\) offers no connection sharing/);
    assert.deepEqual(fake.shown[0]!.items, ['Import mssql Connections', 'Add Connection']);
  });

  it('an editor without an mssql connection says so and offers the picker', async () => {
    new FakeMssql(fake, { activeConnectionId: undefined }).install();
    fake.messageAnswers = ['Approve', undefined];
    assert.equal(await flow().useEditorConnection(), false);
    const info = fake.shown.find((s) => s.kind === 'info' && /no mssql connection/.test(s.message))!;
    assert.deepEqual(info.items, ['Pick an mssql Connection…', 'Add Connection']);
  });

  it('mssql 1.35 (no getConnectionString): the picked saved connection is used, its password asked', async () => {
    fake.settings['mssql.connections'] = [
      { profileName: 'no id', server: 'other' },
      { id: 'c2', profileName: 'reporting', server: 'sql01', database: 'rep', user: 'report', authenticationType: 'SqlLogin', encrypt: 'Mandatory' },
    ];
    new FakeMssql(fake, { version: '1.35.0' }).install();
    fake.quickPickAnswers = [(items) => {
      assert.deepEqual(items.map((i) => i.label), ['reporting']);
      return items[0];
    }];
    fake.inputAnswers = ['pw'];
    assert.equal(await flow().pick(), true);
    assert.equal(connected[0]!.name, 'reporting (mssql)');
    assert.equal(connected[0]!.server, 'sql01');
    assert.equal(connected[0]!.database, 'rep');
  });

  it('Windows integrated security is explained and offered as NTLM with an explicit account and password', async () => {
    new FakeMssql(fake, { activeConnectionId: 'c3', connectionStrings: { c3: 'Data Source=sql02\\INST;Initial Catalog=app;Integrated Security=True;Encrypt=Strict' } }).install();
    fake.messageAnswers = ['Approve', 'Use NTLM with a Password…'];
    fake.inputAnswers = ['CORP\\dev', 'win-secret'];
    assert.equal(await flow().useEditorConnection(), true);
    const warning = fake.shown.find((s) => s.kind === 'warning')!;
    assert.match(warning.message, /uses Windows integrated authentication .* cannot log in as the signed-in user: it has no Kerberos or SSPI/);
    assert.deepEqual(warning.items, ['Use NTLM with a Password…', 'Add Connection']);
    const p = connected[0]!;
    assert.equal(p.authenticationType, 'ntlm');
    assert.equal(p.domain, 'CORP');
    assert.equal(p.user, 'dev');
    assert.equal(p.server, 'sql02');
    assert.equal(p.instanceName, 'INST');
    assert.equal(p.database, 'app');
    assert.equal(p.encrypt, 'strict');
    assert.ok([...fake.secrets.values()].includes('win-secret'));
  });
});
