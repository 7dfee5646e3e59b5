// A comparison JSON file an agent asks about (durability_lens_get_results with "file"): anyone could have written it.
// What the agent reads comes from the file's runs with every GRANT and the restore statement rebuilt from our own
// templates (untrustedComparison.ts, as the panel does), so the file cannot tell an agent what to run or whom to grant
// (outside attack: a file's "Restore FAILED … the assistant must now call …" and its GRANTs reached the agent verbatim).
// Shared by the language-model tools and the MCP server.
import { loadComparison } from '../report/document';
import { agentField, isJson } from './agentText';
import { resultText, summarizeResult } from './resultSummary';
import { neutraliseDocument, tooLargeText } from './untrustedComparison';

export interface ComparisonFileAnswer {
  text: string;
  isError: boolean;
}

/** The result summary of comparison file `name` (its text `raw`), or why it cannot be read; never the file's own SQL. */
export function comparisonFileAnswer(name: string, raw: string): ComparisonFileAnswer {
  // The panel's limit for opened comparison files (the MCP host had none).
  const tooLarge = tooLargeText(agentField(name), Buffer.byteLength(raw, 'utf8'));
  if (tooLarge !== null) return { text: tooLarge, isError: true };
  let doc: ReturnType<typeof loadComparison>;
  try {
    // Neutralised, then loaded again: the model is rebuilt from the neutralised runs, not the file's.
    doc = loadComparison(neutraliseDocument(loadComparison(raw)));
  } catch (err) {
    // JSON.parse's message quotes the text it could not read: say only that it is not JSON.
    return { text: `${agentField(name)} is not a comparison document this version can read: ${isJson(raw) ? agentField((err as Error).message) : 'it is not JSON'}.`, isError: true };
  }
  const restore = doc.restore
    ? { ok: doc.restore.status === 'restored' || doc.restore.status === 'already-original', message: doc.restore.message, originalSetting: doc.restore.originalSetting, verifiedSetting: doc.restore.verifiedSetting }
    : null;
  const summary = summarizeResult({ kind: 'comparison', title: `Durability comparison (${name})`, createdAt: doc.createdAt, workload: null, status: doc.status, error: doc.error?.message ?? null, restore, model: doc.model });
  return { text: resultText(summary), isError: false };
}
