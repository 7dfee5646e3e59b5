// The consent view's parts for the procedure lenses: the CREATE OR ALTER a deploy sends, the RPC call with the values
// the user typed, and the definition that call runs — the editor's (document lines), the deployed one as the server
// returned it, or a note that it can't be read (then it counts as a change: unsure means ask). vscode-free.
import { classifyBatch } from '../../tsql';
import type { ConsentPart } from './consentPart';
import { l10n } from '../l10n';

/** Which definition a call runs. */
export type CalledDefinition =
  /** The editor's text (it matches the deployed one, or is about to be deployed). */
  | { source: 'editor'; text: string; firstLine: number }
  /** The deployed text, which differs from the editor's; the user chose to run it. */
  | { source: 'deployed'; text: string }
  /** The deployed text can't be read (encrypted, no VIEW DEFINITION, numbered, temporary). */
  | { source: 'unknown'; reason: string };

export interface ProcedurePartsInput {
  name: string;
  /** `EXEC [dbo].[p] @rows = 40` as shown (the call goes as an RPC with typed parameters). */
  callText: string;
  definition: CalledDefinition;
  /** The CREATE OR ALTER to send first, with the document line it starts on; null when nothing is deployed. */
  deploy: { statement: string; firstLine: number } | null;
}

export function procedureConsentParts(input: ProcedurePartsInput): ConsentPart[] {
  const parts: ConsentPart[] = [];
  if (input.deploy) {
    parts.push({
      heading: l10n.t('Deploy — sent first, replaces {0} in the database (CREATE OR ALTER keeps its permissions)', input.name),
      text: input.deploy.statement,
      firstLine: input.deploy.firstLine,
      repeat: 1,
      changes: [{ line: input.deploy.firstLine, what: 'CREATE OR ALTER PROCEDURE' }],
      key: 'deploy',
    });
  }
  parts.push({
    heading: l10n.t('Procedure call — sent as an RPC request with the values you entered'),
    text: input.callText,
    firstLine: null,
    repeat: 1,
    changes: [],
    key: null,
    summary: l10n.t('runs the definition below'),
  });
  const d = input.definition;
  if (d.source === 'unknown') {
    parts.push({
      heading: l10n.t("What the call runs: the deployed {0}, whose definition can't be read", input.name),
      text: `-- ${d.reason}`,
      firstLine: null,
      repeat: 1,
      changes: null,
      unknown: d.reason,
      key: 'call',
    });
    return parts;
  }
  // Deployed text is not in the document: its lines are numbered from 1 within the definition (the heading says so).
  const firstLine = d.source === 'editor' ? d.firstLine : 0;
  // What a call runs is the body: the CREATE/ALTER header is not executed by EXEC.
  const changes = classifyBatch(d.text, firstLine, { bodyOnly: true }).changes;
  parts.push({
    heading: d.source === 'editor'
      ? l10n.t('What the call runs: {0} as the editor defines it', input.name)
      : l10n.t("What the call runs: the deployed {0} as the server returned it (it differs from the editor; line numbers here are the definition's own, not the document's)", input.name),
    text: d.text,
    firstLine,
    repeat: 1,
    changes,
    key: 'call',
    ownLines: d.source === 'deployed',
  });
  return parts;
}
