// The one rule of docs/selection.md, over every sample in samples/ (and a document that defines a procedure) and every
// entry point that decides what text runs: the editor commands (Profile Selection, Compare Durability and its sweep all
// call resolveEditorTarget), every code lens the language server puts on the text, the agent tools (VS Code's and the
// MCP server's both call selectWorkload) and the CLI's --file. With nothing selected the cursor at line 1, in the middle
// or in a procedure body chooses the same thing; the consent view shows exactly the batches the run receives.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { selectWorkload } from '../../../src/agent/workloadSelection';
import { readBatches } from '../../../src/cli/commands/shared';
import { partsOfWorkload } from '../../../src/extension/consent/consentView';
import { isRoutineBody, resolveEditorTarget, resolveLensTarget, type WorkloadTarget } from '../../../src/extension/profiling/targets';
import { splitSetup, usableBatches } from '../../../src/profile/setupMarkers';
import { buildCodeLenses } from '../../../src/server/codeLenses';
import { isProfileTarget } from '../../../src/shared/commands';
import { analyze } from '../../../src/tsql';

const SAMPLES = join(__dirname, '../../../samples');

/** A script that deploys a procedure and calls it: nothing selected runs nothing, wherever the cursor is. */
const WITH_PROCEDURE = [
  'SET NOCOUNT ON;', // 1
  'GO',
  'CREATE OR ALTER PROCEDURE dbo.load_rows @n int = 3', // 3
  'AS',
  'BEGIN',
  '  DECLARE @i int = 0;',
  '  WHILE @i < @n', // 7
  '  BEGIN',
  '    INSERT INTO dbo.t DEFAULT VALUES;',
  '    SET @i += 1;',
  '  END',
  'END',
  'GO',
  'EXEC dbo.load_rows @n = 10;', // 14
].join('\n');

const documents: { name: string; text: string }[] = [
  ...readdirSync(SAMPLES).filter((f) => f.endsWith('.sql')).sort().map((f) => ({ name: f, text: readFileSync(join(SAMPLES, f), 'utf8') })),
  { name: 'with-procedure.sql (inline)', text: WITH_PROCEDURE },
];

function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) offset = text.indexOf('\n', offset) + 1;
  return offset;
}

/** The cursors of the rule's table: line 1, the middle line, and inside a procedure body when the text has one. */
function cursors(text: string): { where: string; offset: number }[] {
  const lines = text.split('\n').length;
  const list = [
    { where: 'line 1', offset: 0 },
    { where: `the middle (line ${Math.floor(lines / 2) + 1})`, offset: offsetOfLine(text, Math.floor(lines / 2)) + 2 },
  ];
  const routine = (analyze(text).routines ?? [])[0];
  if (routine) list.push({ where: `the body of ${routine.name}`, offset: offsetOfLine(text, routine.range.start.line + 4) + 4 });
  return list;
}

/** What a run receives, as the run splits it (profileRun / runComparison), in text and document lines. */
function runParts(batches: WorkloadTarget['batches']): { text: string; firstLine: number; repeat: number }[] {
  const split = splitSetup(usableBatches(batches));
  return [...split.setup, ...split.measured].map((b) => ({ text: b.text, firstLine: b.firstLine, repeat: b.repeat }));
}

/** The same, as the consent view shows it. */
function consentParts(batches: WorkloadTarget['batches'], mode: 'profile' | 'compare'): { text: string; firstLine: number | null; repeat: number }[] {
  return partsOfWorkload(batches, mode).map((p) => ({ text: p.text, firstLine: p.firstLine, repeat: p.repeat }));
}

const cliIo = (text: string) => ({ stdout() {}, stderr() {}, readFile: () => text });

describe('profile/workloadChoice: one rule for what runs, every sample × every entry point (docs/selection.md)', () => {
  for (const doc of documents) {
    describe(doc.name, () => {
      const analysis = analyze(doc.text);
      const routine = (analysis.routines ?? [])[0];
      const agent = selectWorkload(doc.text, {});

      it('nothing selected: the editor commands choose the same whole document (or the same refusal) at every cursor, and the agent tools without lines agree', () => {
        const chosen = cursors(doc.text).map((c) => ({ where: c.where, target: resolveEditorTarget(doc.text, null, c.offset) }));
        for (const { where, target } of chosen) {
          if (routine) {
            assert.ok(target && isRoutineBody(target), `${where}: ${JSON.stringify(target)}`);
            assert.equal(target.scope, 'document');
            assert.equal(target.routine.name, routine.name);
            continue;
          }
          assert.ok(target && !isRoutineBody(target), `${where}: ${JSON.stringify(target)}`);
          assert.equal(target.kind, 'document', where);
          // Every batch of the document, as written, in order: the run splits the setup itself.
          assert.deepEqual(target.batches.map((b) => b.index), analysis.batches.map((b) => b.index), where);
          assert.deepEqual(runParts(target.batches), runParts((chosen[0]!.target as WorkloadTarget).batches), where);
          assert.match(target.description, /^the whole document\b/);
        }
        if (routine) {
          assert.equal(typeof agent, 'string');
          assert.match(agent as string, new RegExp(`defines procedure ${routine.name.replace('.', '\\.')} .*Nothing was run\\.`));
        } else {
          assert.ok(typeof agent !== 'string', String(agent));
          const editor = chosen[0]!.target as WorkloadTarget;
          assert.deepEqual(runParts(agent.batches), runParts(editor.batches));
          assert.equal(agent.description, editor.description.replace('whole document', 'whole file'));
          assert.equal(agent.setupDescription, editor.setupDescription);
          assert.equal(agent.hasDelayedCommits, editor.hasDelayedCommits);
        }
      });

      it('the CLI runs the file it is given as written (a selection of all of it): the editor with everything selected agrees', () => {
        const cli = readBatches(cliIo(doc.text) as never, doc.name);
        assert.ok(typeof cli !== 'string', String(cli));
        const selectedAll = resolveEditorTarget(doc.text, { start: 0, end: doc.text.length }, 0);
        assert.ok(selectedAll && !isRoutineBody(selectedAll) && selectedAll.kind === 'selection');
        assert.deepEqual(runParts(cli.batches), runParts(selectedAll.batches));
        assert.equal(runParts(cli.batches).map((p) => p.text).join('\n').includes('CREATE OR ALTER PROCEDURE'), routine !== undefined);
        if (!routine) assert.deepEqual(runParts(cli.batches), runParts((resolveEditorTarget(doc.text, null, 0) as WorkloadTarget).batches));
      });

      it('every lens runs exactly the batch it sits on, after the setup when that batch is measured; an agent\'s startLine on that batch agrees', () => {
        const lenses = buildCodeLenses(analysis, 'file:///w/doc.sql', 1).filter((l) => isProfileTarget(l.command?.arguments?.[0]));
        for (const lens of lenses) {
          const target = lens.command!.arguments![0] as Parameters<typeof resolveLensTarget>[1];
          const chosen = resolveLensTarget(doc.text, target, 1);
          assert.ok(chosen && !isRoutineBody(chosen), `${lens.command!.title} at line ${lens.range.start.line + 1}`);
          const own = analysis.batches[target.batchIndex]!;
          assert.ok(own.range.start.line <= lens.range.start.line && lens.range.start.line <= own.range.end.line, 'the lens sits in its batch');
          assert.equal(chosen.batches.at(-1)!.index, own.index);
          assert.equal(chosen.batches.at(-1)!.text, own.text);
          assert.ok(chosen.batches.slice(0, -1).every((b) => b.index < own.index), 'only setup batches before it');
          const agentBatch = selectWorkload(doc.text, { startLine: own.range.start.line + 1 });
          assert.ok(typeof agentBatch !== 'string', String(agentBatch));
          assert.deepEqual(agentBatch.batches, chosen.batches);
        }
        if (doc.name.startsWith('s1-single')) assert.ok(lenses.length > 0, 'S1 has a Profile batch lens');
      });

      it('the consent view shows exactly what each entry point\'s run receives, setup first, with document lines', () => {
        const targets: WorkloadTarget[] = [];
        for (const c of cursors(doc.text)) {
          const t = resolveEditorTarget(doc.text, null, c.offset);
          if (t && !isRoutineBody(t)) targets.push(t);
        }
        if (typeof agent !== 'string') targets.push(agent);
        for (const lens of buildCodeLenses(analysis, 'file:///w/doc.sql', 1)) {
          const arg = lens.command?.arguments?.[0];
          if (!isProfileTarget(arg)) continue;
          const t = resolveLensTarget(doc.text, arg, 1);
          if (t && !isRoutineBody(t)) targets.push(t);
        }
        const middle = offsetOfLine(doc.text, Math.floor(doc.text.split('\n').length / 2));
        const selection = resolveEditorTarget(doc.text, { start: middle, end: doc.text.length }, middle);
        if (selection && !isRoutineBody(selection)) targets.push(selection);
        assert.ok(targets.length >= (routine ? 1 : 4), `${targets.length} targets`);
        for (const t of targets) {
          for (const mode of ['profile', 'compare'] as const) assert.deepEqual(consentParts(t.batches, mode), runParts(t.batches), `${t.description} (${mode})`);
        }
      });
    });
  }

  it('S5 (no setup markers) with nothing selected runs both of its batches, not only the one under the cursor', () => {
    const s5 = documents.find((d) => d.name.startsWith('s5-'))!;
    for (const c of cursors(s5.text)) {
      const t = resolveEditorTarget(s5.text, null, c.offset) as WorkloadTarget;
      assert.deepEqual(runParts(t.batches).map((p) => p.text.match(/DBCC CHECKDB|BACKUP DATABASE/)?.[0]), ['DBCC CHECKDB', 'BACKUP DATABASE'], c.where);
      assert.equal(t.description, 'the whole document (lines 1–11)');
    }
  });
});
