// Settings a cloned repository must not control: where SQL Server writes trace files comes from the user's settings
// only, a network (UNC) event-file path needs a modal confirmation showing the full path, and the mssql import
// reads only user-level mssql.connections.
import * as assert from 'node:assert/strict';
import { isNetworkPath, readRunSettings } from '../../../src/shared/runSettings';
import { useFakeVscodeWithSettings, sharedFake as fake } from './support/fakeVscode';
import { localizedManifest } from '../../support/manifest';

describe('settings a workspace cannot set', () => {
  useFakeVscodeWithSettings(fake);
  beforeEach(() => {
    fake.reset();
    fake.settings = {};
    fake.workspaceSettings = {};
  });

  it('recognises network paths in every spelling, and not local ones', () => {
    for (const p of ['\\\\attacker\\share\\dl', '//attacker/share/dl', '\\\\?\\UNC\\attacker\\share', '//?/unc/a/b', ' \\\\10.0.0.1\\c$\\x', '\\/host/x']) assert.equal(isNetworkPath(p), true, p);
    for (const p of ['C:\\traces\\dl', '/var/opt/mssql/log/dl', 'D:/x', 'dl', '\\single\\x', '/x']) assert.equal(isNetworkPath(p), false, p);
    const s = readRunSettings((k) => ({ 'xe.target': 'event_file', 'xe.eventFilePath': '\\\\attacker\\share\\dl' })[k as string]);
    assert.deepEqual(s.xeTarget, { kind: 'ring_buffer' });
    assert.match(s.xeTargetRefused!, /\\\\attacker\\share\\dl is a network path/);
    const allowed = readRunSettings((k) => ({ 'xe.target': 'event_file', 'xe.eventFilePath': '\\\\attacker\\share\\dl' })[k as string], { allowNetworkEventFile: true });
    assert.deepEqual(allowed.xeTarget, { kind: 'event_file', path: '\\\\attacker\\share\\dl' });
  });

  it('ignores a workspace\'s xe.target / xe.eventFilePath: the run uses the user\'s (here: the ring buffer)', async () => {
    const { currentRunSettings } = await import('../../../src/extension/runOptions');
    fake.workspaceSettings = { 'durabilityLens.xe.target': 'event_file', 'durabilityLens.xe.eventFilePath': 'C:\\evil\\dl', 'durabilityLens.history.size': 7 };
    const s = currentRunSettings();
    assert.deepEqual(s.xeTarget, { kind: 'ring_buffer' });
    assert.equal(s.historySize, 7, 'other settings still follow the workspace');
    fake.settings = { 'durabilityLens.xe.target': 'event_file', 'durabilityLens.xe.eventFilePath': '/var/opt/mssql/log/dl' };
    assert.deepEqual(currentRunSettings().xeTarget, { kind: 'event_file', path: '/var/opt/mssql/log/dl' });
  });

  it('a network path in the user settings is used only after a modal that shows the full path', async () => {
    const { runSettingsForRun, traceTargetText } = await import('../../../src/extension/runOptions');
    const path = '\\\\files.example\\traces\\durability';
    fake.settings = { 'durabilityLens.xe.target': 'event_file', 'durabilityLens.xe.eventFilePath': path };
    const log: string[] = [];
    fake.messageAnswers = [undefined];
    const declined = await runSettingsForRun((l) => log.push(l));
    assert.deepEqual(declined.xeTarget, { kind: 'ring_buffer' });
    assert.equal(fake.shown[0]!.modal, true);
    assert.ok(fake.shown[0]!.message.includes(path) && fake.shown[0]!.detail!.includes(path));
    assert.match(log.join('\n'), /not used without your confirmation/i);
    fake.messageAnswers = ['Use This Network Path'];
    const accepted = await runSettingsForRun((l) => log.push(l));
    assert.deepEqual(accepted.xeTarget, { kind: 'event_file', path });
    assert.equal(traceTargetText(accepted), `Log-flush trace: event file on the server at ${path}`);
    // Asked once per path and window.
    fake.shown = [];
    assert.deepEqual((await runSettingsForRun(() => undefined)).xeTarget, { kind: 'event_file', path });
    assert.equal(fake.shown.length, 0);
  });

  it('package.json scopes every setting on purpose and declares limited support for untrusted workspaces', () => {
    const pkg = localizedManifest();
    const properties = pkg.contributes.configuration.properties as Record<string, { scope?: string }>;
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.ok(untrusted.description.length > 20);
    for (const [key, p] of Object.entries(properties)) assert.ok(p.scope, `${key} has no scope`);
    assert.equal(properties['durabilityLens.connections']!.scope, 'application');
    assert.equal(properties['durabilityLens.xe.target']!.scope, 'machine');
    assert.equal(properties['durabilityLens.xe.eventFilePath']!.scope, 'machine');
    // Every setting a workspace could set that shapes a run is ignored from the workspace in Restricted Mode.
    for (const [key, p] of Object.entries(properties)) {
      if (p.scope === 'application' || key.includes('.diagnostics.') || key.endsWith('codeLens.enabled') || key.endsWith('trace.server')) continue;
      assert.ok(untrusted.restrictedConfigurations.includes(key), `${key} is not in restrictedConfigurations`);
    }
  });
});
