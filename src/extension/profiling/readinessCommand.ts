// "Durability Lens: Check Server Readiness": the read-only readiness check of `durability-lens doctor` for the active
// connection — every probe once, status / rows / GRANT per probe, platform, version, encryption, features — written
// to the output channel, with the JSON report and the GRANT script one click away for a bug report or a DBA.
import * as vscode from 'vscode';
import type { SqlSession } from '../../db/types';
import { checkReadiness, describeReadiness } from '../../profile/readiness';
import { ConnectionCommands, READINESS_COMMAND_TITLES, ReadinessCommands } from '../commandIds';
import type { ConnectionManager } from '../connections';
import { l10n } from '../l10n';

const TITLE = `Durability Lens: ${READINESS_COMMAND_TITLES[ReadinessCommands.checkServerReadiness]}`;

export function registerReadinessCommand(connections: ConnectionManager, output: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(ReadinessCommands.checkServerReadiness, async () => {
    const source = connections.connectionSource();
    if (!source) {
      const connect = l10n.t('Connect…');
      if ((await vscode.window.showWarningMessage(l10n.t(`{0}: connect to a server first.`, TITLE), connect)) === connect) {
        await vscode.commands.executeCommand(ConnectionCommands.connect);
      }
      return;
    }
    const opened: SqlSession[] = [];
    try {
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: l10n.t(`{0} (read-only)…`, TITLE) }, async () => {
        const monitor = await source.open('monitor');
        opened.push(monitor);
        // A second session, as a run's workload: proves whether its waits are visible to the monitor.
        const workload = await source.open('workload');
        opened.push(workload);
        const evidence = (monitor as { encryptionEvidence?: 'server' | 'client' | null }).encryptionEvidence ?? null;
        return checkReadiness(monitor, { workload, encryption: { encrypted: monitor.encrypted, evidence } });
      });
      output.info(`${TITLE} for ${source.serverLabel}:\n${describeReadiness(report)}`);
      output.show(true);
      const denied = report.probes.filter((p) => p.status !== 'ok' && p.status !== 'not applicable');
      const copyJson = l10n.t('Copy JSON Report');
      const copyGrants = l10n.t('Copy GRANT Script');
      const actions = report.grantScript ? [copyJson, copyGrants] : [copyJson];
      const message = denied.length === 0
        ? l10n.t('{0}: every probe works. Nothing was changed on the server.', TITLE)
        : l10n.t('{0}: {1} probe(s) not fully available ({2}). Details and GRANTs are in the output. Nothing was changed on the server.', TITLE, denied.length, denied.map((p) => `${p.id} ${p.status}`).join(', '));
      const choice = await (denied.length === 0 ? vscode.window.showInformationMessage(message, ...actions) : vscode.window.showWarningMessage(message, ...actions));
      if (choice === copyJson) await vscode.env.clipboard.writeText(JSON.stringify(report, null, 2));
      if (choice === copyGrants) await vscode.env.clipboard.writeText(report.grantScript);
    } catch (err) {
      const text = (err as Error).message ?? String(err);
      output.error(`${TITLE} failed: ${text}`);
      void vscode.window.showErrorMessage(l10n.t(`{0} failed: {1} Nothing was changed on the server.`, TITLE, text));
    } finally {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
    }
  });
}
