// Ad-hoc log-flush tracing while the user works in another tool: "Start Log-Flush Trace" creates and starts a
// durability_lens_* session for the connected database, "Stop Trace and Show" reads it, drops it and shows the figures;
// a status bar item shows it is running; dispose (deactivation) stops and drops it without showing anything.
import * as vscode from 'vscode';
import type { SqlSession } from '../../db/types';
import { readTargetDatabase } from '../../profile';
import { LogFlushSession } from '../../xe';
import { HistoryCommands } from '../commandIds';
import { panelDataFromTrace } from '../panel';
import { showAndKeep } from '../history';
import { runSettingsForRun } from '../runOptions';
import { type CaptureDeps, StatusBarCapture } from './statusBarCapture';
import { l10n } from '../l10n';
import { iconLabelField } from '../../shared/visibleText';

interface RunningTrace {
  session: LogFlushSession;
  monitor: SqlSession;
  /** Opens a fresh monitor connection so the session can still be dropped if the first one died. */
  reopen: () => Promise<SqlSession>;
  database: string;
  server: string;
  standIn: boolean;
  startedAt: Date;
}

export class AdhocTrace extends StatusBarCapture {
  private running: RunningTrace | null = null;
  private busy = false;

  constructor(deps: CaptureDeps) {
    super({ id: 'durabilityLens.trace', name: l10n.t('Durability Lens log-flush trace'), priority: 49, command: HistoryCommands.stopLogFlushTrace }, deps);
  }

  /** The live session's name (so the orphan check does not offer to drop it). */
  get sessionName(): string | null {
    return this.running?.session.name ?? null;
  }

  async start(): Promise<boolean> {
    if (this.running) {
      void vscode.window.showWarningMessage(l10n.t(`Durability Lens: a log-flush trace of {0} is already running; use "Stop Trace and Show" first.`, this.running.database));
      return false;
    }
    if (this.busy) return false;
    if (!this.connections.current && !(await this.connections.connect())) return false;
    const active = this.connections.current!;
    const source = this.connections.connectionSource()!;
    this.busy = true;
    const settings = await runSettingsForRun((line) => this.output.info(line)).catch((err: unknown) => {
      this.busy = false;
      throw err;
    });
    let monitor: SqlSession | null = null;
    let session: LogFlushSession | null = null;
    try {
      monitor = await source.open('monitor');
      const target = await readTargetDatabase(monitor);
      const sessionName = this.ledger ? await this.ledger.claim() : undefined;
      session = await LogFlushSession.prepare(monitor, { databaseId: target.databaseId, target: settings.xeTarget, sessionName });
      await session.start();
      this.running = { session, monitor, reopen: () => source.open('monitor'), database: target.databaseName, server: active.serverLabel, standIn: active.standIn, startedAt: session.startedAt ?? new Date() };
      this.output.info(`Log-flush trace ${session.name} started on ${active.serverLabel}, database ${target.databaseName} (${session.plan.target.kind}).`);
      for (const note of session.plan.notes) this.output.info(`Trace: ${note}`);
      this.render();
      void vscode.window.showInformationMessage(l10n.t(`Durability Lens: tracing log flushes of {0}. Work in any tool, then run "Stop Trace and Show".`, target.databaseName));
      return true;
    } catch (err) {
      // Nothing may stay behind: drop what was created, then say why it did not start.
      await session?.dispose(() => source.open('monitor')).catch((e: Error) => this.output.error(`Could not drop ${session?.name}: ${e.message}`));
      await monitor?.close().catch(() => undefined);
      const message = (err as Error)?.message ?? String(err);
      this.output.error(`The log-flush trace did not start: ${message}`);
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: the log-flush trace did not start: {0} No event session was left on the server.`, message));
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** Stops, reads, drops; shows the figures unless `show` is false (deactivation). */
  async stop(show = true): Promise<boolean> {
    const r = this.running;
    if (!r) {
      if (show) void vscode.window.showInformationMessage(l10n.t('Durability Lens: no log-flush trace is running. Start one with "Start Log-Flush Trace".'));
      return false;
    }
    this.running = null;
    this.render();
    let trace = null;
    let failure: string | null = null;
    try {
      await r.session.stop();
      trace = await r.session.collect();
    } catch (err) {
      failure = (err as Error)?.message ?? String(err);
    } finally {
      try {
        await r.session.dispose(r.reopen);
        this.output.info(`Log-flush trace ${r.session.name} stopped and dropped.`);
      } catch (err) {
        const message = `Could not drop the event session ${r.session.name}: ${(err as Error).message}. It is listed as leftover on the next connect.`;
        this.output.error(message);
        if (show) void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, message));
      }
      await r.monitor.close().catch(() => undefined);
    }
    if (failure || !trace) {
      this.output.error(`Reading the log-flush trace failed: ${failure}`);
      if (show) void vscode.window.showErrorMessage(l10n.t(`Durability Lens: reading the log-flush trace failed: {0}`, failure ?? l10n.t('the event session returned no trace.')));
      return false;
    }
    if (!show) return true;
    const data = panelDataFromTrace(trace, { server: r.server, database: r.database, standIn: r.standIn, startedAt: r.startedAt });
    await showAndKeep(this.deps, 'the trace', data, []);
    return true;
  }

  private render(): void {
    const r = this.running;
    this.showStatus(r && {
      text: l10n.t('$(record) Log-flush trace: {0}', iconLabelField(r.database)), // the status bar renders $(icon) syntax
      tooltip: l10n.t(`Durability Lens is tracing log flushes of {0} on {1} (event session {2}). Click to stop and show.`, r.database, r.server, r.session.name),
    });
  }
}
