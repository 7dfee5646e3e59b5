// "Start Recording" / "Stop Recording and Show" with the scripted fake `vscode` against the TDS stand-in: the status bar
// shows the elapsed time and the live log flushes while another process (python-tds) works; Stop shows the recording
// and keeps it in the history; deactivation ends the window without showing anything; no event session is left.
// Figures are the stand-in model's.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { RecordingWindow as RecordingWindowType } from '../../../src/extension/recording/recordingWindow';
import type { RunHistory as RunHistoryType } from '../../../src/extension/history/runHistory';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { RunResult } from '../../../src/profile/types';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';
import { waitFor } from '../../integration/support';
import { createRecordedRows, INSERT_ROWS, pytdsAvailable } from '../../integration/record/support/program';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const fake = sharedFake;

class MemoryMemento {
  private values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

function runProgram(port: number, rows: number): Promise<number | null> {
  const child = spawn('python3', [INSERT_ROWS, String(port), String(rows)], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
}

describe('Start Recording / Stop Recording and Show with a fake vscode (stand-in)', function () {
  this.timeout(120_000);
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let recording: RecordingWindowType;
  let history: RunHistoryType;
  let elapsedText: (ms: number) => string;
  const shownPanels: { data: PanelData; runs: readonly RunResult[] }[] = [];
  const lines: string[] = [];
  const output = fakeOutput(lines) as never;
  const panels = { show: async (data: PanelData, runs: readonly RunResult[] = []) => void shownPanels.push({ data, runs }) } as never;
  const statusText = () => fake.statusItems.get('durabilityLens.recording') ?? '';

  before(async function () {
    if (!pytdsAvailable) this.skip();
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    process.env.LENS_TEST_PROGRAM_PASSWORD = h.secret; // the recorded program's own password variable (insert_rows.py)
    await createRecordedRows(h);
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { RunHistory } = await import('../../../src/extension/history/runHistory');
    const mod = await import('../../../src/extension/recording/recordingWindow');
    elapsedText = mod.elapsedText;
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    fake.settings['durabilityLens.sampling.intervalMs'] = 100;
    const store = new ConnectionStore(fake.secretStorage() as never);
    manager = new ConnectionManager(store, output, new KeyValueRestoreJournal(new MemoryStore()), async () => undefined);
    history = new RunHistory(new MemoryMemento(), () => 5);
    recording = new mod.RecordingWindow({ output, connections: manager, panels, history });
  });

  after(async () => {
    delete process.env.LENS_TEST_PROGRAM_PASSWORD;
    await recording?.shutdown();
    manager?.dispose();
    uninstall?.();
    await h?.close();
  });

  it('formats the elapsed time for the status bar', () => {
    assert.equal(elapsedText(0), '0:00');
    assert.equal(elapsedText(65_400), '1:05');
    assert.equal(elapsedText(3_725_000), '1:02:05');
  });

  it('records what another process does: live flushes in the status bar, Stop shows the recording and keeps it', async () => {
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await recording.start(), true);
    assert.equal(recording.isRecording, true);
    assert.match(statusText(), /^\$\(record\) Recording lab \d+:\d\d/);
    assert.equal(await recording.start(), false, 'one recording at a time');
    assert.ok(fake.shown.some((m) => /already recording lab/.test(m.message)));

    assert.equal(await runProgram(h.server.port, 30), 0);
    // The sampler's figures reach the status bar (polled with a deadline, not a sleep).
    await waitFor(() => / · 3\d flushes$/.test(statusText()), `live flushes in the status bar (now: ${statusText()})`, 15_000);

    const run = await recording.stop();
    assert.ok(run);
    assert.equal(recording.isRecording, false);
    assert.equal(statusText(), '', 'the status item is hidden');
    assert.equal(run.recording?.kind, 'window');
    assert.equal(run.recording?.ended, 'stopped');
    assert.equal(run.status, 'completed');
    assert.equal(run.recording?.writeTransactions, 30);
    assert.equal(run.serverWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks, 30);
    const shown = shownPanels.at(-1)!;
    assert.equal(shown.runs[0], run);
    assert.match(shown.data.header.workload ?? '', /^Recording of lab \(\d+:\d\d; server waits are server-wide\)$/);
    assert.equal((await history.list()).length, 1);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the trace session was dropped');
  });

  it('Stop without a recording says so; deactivation ends a window without showing it and leaves no session', async () => {
    assert.equal(await recording.stop(), null);
    assert.ok(fake.shown.some((m) => /nothing is being recorded/.test(m.message)));
    const before = shownPanels.length;
    assert.equal(await recording.start(), true);
    await recording.shutdown();
    assert.equal(recording.isRecording, false);
    assert.equal(shownPanels.length, before);
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });
});
