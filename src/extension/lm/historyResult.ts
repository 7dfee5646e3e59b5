// A run-history entry (panel data as the panel showed it) as the input of the agent's result summary. vscode-free.
import type { ResultInput } from '../../agent/resultSummary';
import type { HistoryEntry } from '../history';

export function resultInputOfEntry(e: HistoryEntry): ResultInput {
  const h = e.panel.header;
  return {
    kind: e.kind,
    title: e.title,
    createdAt: e.createdAt,
    workload: h.workload ?? null,
    status: h.status,
    error: h.error,
    restore: h.restore ? { ok: h.restore.ok, message: h.restore.message, originalSetting: h.restore.originalSetting ?? null, verifiedSetting: h.restore.verifiedSetting ?? null } : null,
    model: e.panel.model,
  };
}
