// The ProfilingController wired as the extension wires it — connection manager, consent gate, an in-memory restore
// journal, a panel that collects what it is shown — on the fake `vscode`, connected to a fresh stand-in with a saved
// development connection "flow". Shared by the suites that drive the controller end to end (consentFlow,
// traceOverheadFlow); each registers the returned hooks' state through `flow`.
import * as assert from 'node:assert/strict';
import { connect } from '../../../../src/db/connect';
import type { ProfilingController } from '../../../../src/extension/profiling/profilingController';
import type { ConnectionManager } from '../../../../src/extension/connections/connectionManager';
import { KeyValueRestoreJournal, MemoryStore } from '../../../../src/profile/restoreJournal';
import type { PanelData } from '../../../../src/shared/webviewProtocol';
import { startStandin, type StandinHarness } from '../../../integration/profile/standin';
import { fakeOutput, installFakeVscode, sharedFake } from './fakeVscode';

/** A minimal TextDocument over `text` (LF lines), as the controller reads one. */
export function fakeDocument(text: string, uri: string) {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return {
    uri: { toString: () => uri, path: uri.replace(/^file:\/\//, '') },
    fileName: uri.replace(/^file:\/\//, ''),
    languageId: 'sql',
    version: 1,
    lineCount: lines.length,
    getText: (range?: { start: { line: number; character: number }; end: { line: number; character: number } }) => (range ? text.slice(offset(range.start), offset(range.end)) : text),
    offsetAt: offset,
    lineAt: (line: number) => ({ range: { start: { line, character: 0 }, end: { line, character: lines[line]!.length } } }),
  };
}

export interface ControllerFlow {
  h: StandinHarness;
  manager: ConnectionManager;
  controller: ProfilingController;
  /** What the panel was shown, in order. */
  panels: PanelData[];
  /** The output channel's lines. */
  lines: string[];
  /** `SELECT COUNT(*)` of a table on a fresh monitor connection. */
  rows(table: string): Promise<number>;
}

/**
 * Registers before/after hooks in the calling describe(): the stand-in starts, `setupSql` runs, the controller connects
 * to "flow" and `documents` are open. The returned object is filled in by the before hook.
 */
export function useControllerFlow(setupSql: string, documents: readonly unknown[], extraSettings: readonly string[] = []): ControllerFlow {
  const fake = sharedFake;
  const flow = { panels: [], lines: [] } as unknown as ControllerFlow;
  let uninstall: (() => void) | undefined;
  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    flow.h = await startStandin();
    const setup = await connect(flow.h.profile, flow.h.secret, { role: 'workload' });
    await setup.execute(setupSql);
    await setup.close();
    const { ConnectionStore } = await import('../../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../../src/extension/profiling/profilingController');
    const { ConsentGate } = await import('../../../../src/extension/consent/consentGate');
    const { ConsentStore, MemoryMemento } = await import('../../../../src/extension/consent/consentStore');
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    fake.settings['durabilityLens.connections'] = [{ name: 'flow', server: '127.0.0.1', port: flow.h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    const output = fakeOutput(flow.lines) as never;
    flow.manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), output, journal, async () => undefined);
    const gate = new ConsentGate(new ConsentStore(new MemoryMemento()), output);
    flow.controller = new ProfilingController(output, flow.manager, { show: async (d: PanelData) => void flow.panels.push(d) } as never, journal, undefined, undefined, undefined, gate);
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'flow'));
    fake.inputAnswers.push(flow.h.secret);
    assert.equal(await flow.manager.connect(), true);
    fake.documents = [...documents] as never;
  });
  after(async () => {
    flow.manager?.dispose();
    delete fake.settings['durabilityLens.connections'];
    for (const key of extraSettings) delete fake.settings[key];
    fake.documents = [];
    fake.reset();
    uninstall?.();
    await flow.h?.close();
  });
  flow.rows = async (table: string) => {
    const s = await connect(flow.h.profile, flow.h.secret, { role: 'monitor' });
    try {
      const [row] = await s.query(`SELECT COUNT(*) AS n FROM dbo.${table}`);
      return Number(row!.n);
    } finally {
      await s.close();
    }
  };
  return flow;
}
