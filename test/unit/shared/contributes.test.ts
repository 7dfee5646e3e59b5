// package.json "activationEvents"/"contributes" must agree with the ids and settings the code uses.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONNECTION_COMMAND_TITLES, CONSENT_COMMAND_TITLES, ConnectionCommands, ConsentCommands, HISTORY_COMMAND_TITLES, HistoryCommands, READINESS_COMMAND_TITLES, ReadinessCommands, MSSQL_COMMAND_TITLES, MssqlConnectionCommands, RECORDING_COMMAND_TITLES, RecordingCommands, STATUS_BAR_COMMAND, WALKTHROUGH_COMMAND_TITLES, WalkthroughCommands } from '../../../src/extension/commandIds';
import { RUN_SETTING_DEFAULTS } from '../../../src/shared/runSettings';
import { Commands } from '../../../src/shared/commands';
import { TOP_LOG_COMMAND_TITLES, TOP_LOG_INTERNAL_COMMANDS, TOP_LOG_VIEW, TopLogCommands } from '../../../src/extension/topLog/ids';
import { DIAGNOSTIC_CODES, DIAGNOSTIC_INFO, SETTINGS_SECTION } from '../../../src/shared/settings';
import { localizedManifest } from '../../support/manifest';

const root = path.resolve(__dirname, '../../..');
// As VS Code shows it: the %key% strings resolved from package.nls.json.
const pkg = localizedManifest(root);

describe('package.json contributes', () => {
  const allCommandIds = [...Object.values(Commands), ...Object.values(ConnectionCommands), ...Object.values(HistoryCommands), ...Object.values(ReadinessCommands), ...Object.values(RecordingCommands), ...Object.values(ConsentCommands), ...Object.values(WalkthroughCommands), ...Object.values(TopLogCommands), ...Object.values(MssqlConnectionCommands), STATUS_BAR_COMMAND];

  it('contributes exactly the shared and connection command ids, in the Durability Lens category', () => {
    const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual(contributed, [...allCommandIds].sort());
    for (const command of pkg.contributes.commands) assert.equal(command.category, 'Durability Lens');
    const titles = Object.fromEntries(pkg.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    assert.equal(titles[Commands.profileSelection], 'Profile Selection');
    assert.equal(titles[Commands.compareDurability], 'Compare Durability');
    for (const [id, title] of Object.entries({ ...CONNECTION_COMMAND_TITLES, ...HISTORY_COMMAND_TITLES, ...READINESS_COMMAND_TITLES, ...RECORDING_COMMAND_TITLES, ...CONSENT_COMMAND_TITLES, ...WALKTHROUGH_COMMAND_TITLES, ...TOP_LOG_COMMAND_TITLES, ...MSSQL_COMMAND_TITLES })) assert.equal(titles[id], title, id);
    const hidden = pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === STATUS_BAR_COMMAND);
    assert.equal(hidden?.when, 'false', 'the status bar menu command stays out of the palette');
  });

  it('contributes the Heaviest Log Writers view in the Explorer, its title actions and row menu, internal commands hidden', () => {
    const view = pkg.contributes.views.explorer.find((v: { id: string }) => v.id === TOP_LOG_VIEW);
    assert.equal(view?.when, 'durabilityLens.topLog.loaded');
    assert.ok(pkg.activationEvents.includes(`onView:${TOP_LOG_VIEW}`));
    for (const id of TOP_LOG_INTERNAL_COMMANDS) assert.equal(pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === id)?.when, 'false', id);
    const titleActions = pkg.contributes.menus['view/title'].filter((m: { when: string }) => m.when === `view == ${TOP_LOG_VIEW}`).map((m: { command: string }) => m.command);
    assert.deepEqual(titleActions.sort(), [TopLogCommands.rankBy, TopLogCommands.refresh].sort());
    assert.ok(pkg.contributes.menus['view/item/context'].some((m: { command: string; when: string }) => m.command === TopLogCommands.openFromServer && m.when.includes('viewItem == logWriter.module')));
  });

  it('activates on the sql language and on every command', () => {
    assert.ok(pkg.activationEvents.includes('onLanguage:sql'));
    for (const id of allCommandIds) assert.ok(pkg.activationEvents.includes(`onCommand:${id}`), id);
    assert.ok(pkg.activationEvents.includes('onWebviewPanel:durabilityLens.comparison'), 'a restored comparison panel activates the extension');
  });

  it('declares one boolean setting per diagnostic code, default on, plus code lens and trace settings', () => {
    const properties = pkg.contributes.configuration.properties;
    for (const code of DIAGNOSTIC_CODES) {
      const key = `${SETTINGS_SECTION}.diagnostics.${DIAGNOSTIC_INFO[code].setting}`;
      assert.equal(properties[key]?.type, 'boolean', key);
      assert.equal(properties[key].default, true, key);
      assert.ok(properties[key].markdownDescription.includes(code), `${key} description names ${code}`);
    }
    assert.equal(properties['durabilityLens.codeLens.enabled'].default, true);
    assert.deepEqual(properties['durabilityLens.trace.server'].enum, ['off', 'messages', 'verbose']);
    const ours = Object.keys(properties).filter((k) => k.startsWith('durabilityLens.'));
    assert.equal(ours.length, DIAGNOSTIC_CODES.length + 3 + Object.keys(RUN_SETTING_DEFAULTS).length);
    const connections = properties['durabilityLens.connections'];
    assert.equal(connections.type, 'array');
    const fields = Object.keys(connections.items.properties);
    for (const secret of ['password', 'secret', 'token']) assert.ok(!fields.includes(secret), `no ${secret} field in settings`);
    assert.equal(connections.items.additionalProperties, false);
  });

  it('declares every run setting with the default the reader uses', () => {
    const properties = pkg.contributes.configuration.properties;
    for (const [key, value] of Object.entries(RUN_SETTING_DEFAULTS)) {
      const declared = properties[`${SETTINGS_SECTION}.${key}`];
      assert.ok(declared, key);
      assert.deepEqual(declared.default, value, key);
      assert.ok(typeof declared.markdownDescription === 'string' && declared.markdownDescription.length > 20, key);
    }
    assert.deepEqual(properties['durabilityLens.xe.target'].enum, ['ring_buffer', 'event_file']);
  });

  it('puts the selection commands in the sql editor context menu and contributes sql snippets that exist', () => {
    const context = pkg.contributes.menus['editor/context'];
    for (const id of [Commands.profileSelection, Commands.compareDurability]) {
      assert.ok(context.some((m: { command: string; when: string }) => m.command === id && m.when === 'editorLangId == sql'), id);
    }
    assert.equal(pkg.contributes.grammars, undefined, 'no grammar: the built-in SQL grammar stays in charge');
    for (const snippet of pkg.contributes.snippets) {
      assert.equal(snippet.language, 'sql');
      assert.ok(fs.existsSync(path.join(root, snippet.path)), snippet.path);
    }
  });

  it('documents every command and setting in docs/settings-and-commands.md', () => {
    const doc = fs.readFileSync(path.join(root, 'docs/settings-and-commands.md'), 'utf8');
    for (const id of [...Object.values(Commands), ...Object.values(ConnectionCommands), ...Object.values(HistoryCommands), ...Object.values(ReadinessCommands), TopLogCommands.show, TopLogCommands.refresh, TopLogCommands.rankBy, TopLogCommands.openFromServer]) assert.ok(doc.includes(`\`${id}\``), id);
    for (const key of Object.keys(pkg.contributes.configuration.properties)) assert.ok(doc.includes(`\`${key}\``), key);
  });
});
