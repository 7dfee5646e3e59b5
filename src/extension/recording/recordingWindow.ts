// "Start Recording" / "Stop Recording and Show": a recording window on the connected database while the user runs a
// test suite (or anything) in another tool — the core's recordWindow (snapshots, log-flush trace, samples) until Stop;
// a status bar item shows the elapsed time and the live log flushes; deactivation ends it without showing anything.
import * as vscode from 'vscode';
import { recordWindow, type ProgressEvent, type RunResult } from '../../profile';
import { newSessionName } from '../../xe';
import { RecordingCommands } from '../commandIds';
import { panelDataFromRun } from '../panel';
import { showAndKeep } from '../history';
import { coreRunOptions, runSettingsForRun } from '../runOptions';
import { type CaptureDeps, StatusBarCapture } from './statusBarCapture';
import { l10n } from '../l10n';
import { iconLabelField } from '../../shared/visibleText';

interface Running {
  stop: AbortController;
  done: Promise<RunResult | null>;
  startedAt: number;
  server: string;
  database: string;
  flushes: number | null;
  /** The window's log-flush session (its companions carry its name): live until stop. */
  sessionName: string;
}

/** "m:ss" (or "h:mm:ss") for the status bar. */
export function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(s >= 3600 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

export class RecordingWindow extends StatusBarCapture {
  private running: Running | null = null;
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(deps: CaptureDeps, private readonly now: () => number = Date.now) {
    super({ id: 'durabilityLens.recording', name: l10n.t('Durability Lens recording'), priority: 48, command: RecordingCommands.stopRecording }, deps);
  }

  get isRecording(): boolean {
    return this.running !== null;
  }

  /** The running window's event session, so the leftover-session check leaves it alone; null when not recording. */
  get sessionName(): string | null {
    return this.running?.sessionName ?? null;
  }

  /** What the status bar shows (tests read it; the ticker re-renders it every second). */
  get statusText(): string {
    return this.statusItem.text;
  }

  async start(): Promise<boolean> {
    if (this.running) {
      void vscode.window.showWarningMessage(l10n.t(`Durability Lens: already recording {0}; use "Stop Recording and Show" first.`, this.running.database));
      return false;
    }
    if (!this.connections.current && !(await this.connections.connect())) return false;
    const active = this.connections.current!;
    const source = this.connections.connectionSource()!;
    const settings = await runSettingsForRun((line) => this.output.info(line));
    const { xe, waits } = coreRunOptions(settings);
    const sampling = { enabled: true, intervalMs: settings.samplingIntervalMs };
    const sessionName = this.ledger ? await this.ledger.claim() : newSessionName();
    const stop = new AbortController();
    let opened: () => void = () => undefined;
    const windowOpen = new Promise<void>((resolve) => (opened = resolve));
    const running: Running = { stop, done: Promise.resolve(null), startedAt: this.now(), server: active.serverLabel, database: active.database, flushes: null, sessionName };
    const onProgress = (e: ProgressEvent) => {
      if (e.step === 'workload') {
        running.startedAt = this.now();
        opened();
      }
      if (e.live?.logFlushes !== undefined && e.live.logFlushes !== null) running.flushes = e.live.logFlushes;
      this.render();
    };
    running.done = recordWindow({
      connections: source,
      command: null,
      stop: stop.signal,
      xe: { ...xe, sessionName },
      sampling,
      waits,
      onProgress,
    }).catch((err: unknown) => {
      const message = (err as Error)?.message ?? String(err);
      this.output.error(`The recording failed: ${message}`);
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: the recording failed: {0} The event session was dropped; nothing was changed on the server.`, message));
      if (this.running === running) this.end();
      opened();
      return null;
    });
    this.running = running;
    this.render();
    this.ticker = setInterval(() => this.render(), 1000);
    await windowOpen;
    if (this.running !== running) return false;
    this.output.info(`Recording ${active.database} on ${active.serverLabel}: run your tests in any tool, then "Stop Recording and Show".`);
    void vscode.window.showInformationMessage(l10n.t(`Durability Lens: recording {0}. Run your tests in any tool, then "Stop Recording and Show" (or click the status bar).`, active.database));
    return true;
  }

  /** Ends the window; shows the recording unless `show` is false (deactivation). */
  async stop(show = true): Promise<RunResult | null> {
    const r = this.running;
    if (!r) {
      if (show) void vscode.window.showInformationMessage(l10n.t('Durability Lens: nothing is being recorded. Start with "Start Recording".'));
      return null;
    }
    r.stop.abort();
    const run = await r.done;
    this.end();
    if (!run || !show) return run;
    const data = panelDataFromRun(run, r.server);
    data.header.workload = `Recording of ${r.database} (${elapsedText(run.durationMs ?? run.elapsedMs)}; server waits are server-wide)`;
    await showAndKeep(this.deps, 'the recording', data, [run]);
    return run;
  }

  private end(): void {
    this.running = null;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.render();
  }

  private render(): void {
    const r = this.running;
    const time = r ? elapsedText(this.now() - r.startedAt) : '';
    const database = iconLabelField(r?.database ?? ''); // the status bar renders $(icon) syntax: the name shows as written
    this.showStatus(r && {
      text: r.flushes === null
        ? l10n.t('$(record) Recording {0} {1}', database, time)
        : r.flushes === 1 ? l10n.t('$(record) Recording {0} {1} · 1 flush', database, time) : l10n.t('$(record) Recording {0} {1} · {2} flushes', database, time, r.flushes),
      tooltip: l10n.t(`Durability Lens is recording {0} on {1}: server waits are server-wide, file IO and log flushes cover the whole database. Click to stop and show.`, r.database, r.server),
    });
  }
}
