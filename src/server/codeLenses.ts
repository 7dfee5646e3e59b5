// Code lenses from an analysis: "Profile transaction" and "Compare durability" on every COMMIT,
// "Profile batch" on batches that run DML inside a loop. Each lens carries a ProfileTarget for the client command.
import type { CodeLens } from 'vscode-languageserver/node';
import { Commands, type ProfileTarget } from '../shared/commands';
import type { Analysis, Range } from '../tsql/types';

export function buildCodeLenses(analysis: Analysis, uri: string, version: number): CodeLens[] {
  const lenses: CodeLens[] = [];
  const batches = new Map(analysis.batches.map((batch) => [batch.index, batch]));

  for (const commit of analysis.commits) {
    const batch = batches.get(commit.batchIndex);
    if (!batch) continue;
    const target: ProfileTarget = {
      uri,
      version,
      batchIndex: batch.index,
      batchRange: batch.range,
      repeat: batch.repeat,
      commit: {
        position: commit.keywordRange.start,
        range: commit.range,
        transactionRange: commit.beginRange ? { start: commit.beginRange.start, end: commit.range.end } : null,
        delayedDurability: commit.delayedDurability,
        inLoop: commit.inLoop,
      },
    };
    const at = commit.keywordRange;
    lenses.push({ range: at, command: { title: 'Profile transaction', command: Commands.profileTransaction, arguments: [target] } });
    lenses.push({ range: at, command: { title: 'Compare durability', command: Commands.compareDurability, arguments: [target] } });
  }

  // The lens goes on the first loop of the batch (where the per-row commits happen), else on the batch start.
  const firstLoop = new Map<number, Range>();
  for (const loop of analysis.loops) {
    const known = firstLoop.get(loop.batchIndex);
    if (!known || before(loop.range, known)) firstLoop.set(loop.batchIndex, loop.range);
  }
  for (const index of analysis.batchesWithDmlInLoop) {
    const batch = batches.get(index);
    if (!batch) continue;
    const target: ProfileTarget = { uri, version, batchIndex: index, batchRange: batch.range, repeat: batch.repeat, commit: null };
    const loop = firstLoop.get(index);
    const at = loop ? { start: loop.start, end: loop.start } : { start: batch.range.start, end: batch.range.start };
    const title = batch.repeat > 1 ? `Profile batch (GO ${batch.repeat})` : 'Profile batch';
    lenses.push({ range: at, command: { title, command: Commands.profileBatch, arguments: [target] } });
  }
  return lenses;
}

function before(a: Range, b: Range): boolean {
  return a.start.line < b.start.line || (a.start.line === b.start.line && a.start.character < b.start.character);
}
