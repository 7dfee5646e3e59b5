// Benchmark of per-statement attribution (issue 16): parse a statement trace's ring-buffer XML and fold it into
// per-statement figures — S1's 10,000-iteration loop (INSERT, SET, WRITELOG wait: 30,000 events), and a generated
// script of 5,000 GO batches (each statement must be located in its own batch). Median of 5 after a warm-up.
// Runs through bench/run.ts via the exported run().

import type { WorkloadBatch } from '../src/db/types';
import { StatementAccumulator } from '../src/profile/statementAttribution';
import { analyze } from '../src/tsql';
import { readRingBufferXml } from '../src/xe/reader';
import { hostLoad, measure, ms, type BenchResult } from './types';

const TARGET_MS = 1000;

function data(name: string, type: string, value: string | number): string {
  return `<data name="${name}"><type name="${type}" package="package0"/><value>${value}</value></data>`;
}

function statement(batch: string, text: string, line: number, durationUs: number): string {
  const at = batch.indexOf(text);
  return `<event name="sql_statement_completed" package="sqlserver" timestamp="2026-11-25T10:00:00.000Z">${data('duration', 'uint64', durationUs)}${data('row_count', 'uint64', 1)}${data('line_number', 'int32', line)}${data('offset', 'int32', at * 2)}${data('offset_end', 'int32', (at + text.length) * 2)}${data('statement', 'unicode_string', text)}</event>`;
}

const WAIT = `<event name="wait_completed" package="sqlos" timestamp="2026-11-25T10:00:00.000Z"><data name="wait_type"><type name="wait_types" package="sqlos"/><value>180</value><text>WRITELOG</text></data>${data('duration', 'uint64', 400)}</event>`;

function batchesOf(script: string): WorkloadBatch[] {
  return analyze(script).batches.filter((b) => !b.empty).map((b) => ({ text: b.text, repeat: b.repeat, firstLine: b.firstLine }));
}

function fold(xml: string, batches: WorkloadBatch[]): number {
  const acc = new StatementAccumulator({ batches, statementUnit: 'microseconds', waitUnit: 'microseconds' });
  readRingBufferXml(xml, (e) => acc.add(e));
  return acc.finish().length;
}

export async function run(): Promise<BenchResult[]> {
  const loop = 'DECLARE @i int = 0;\nWHILE @i < 10000\nBEGIN\n  INSERT INTO dbo.t (v) VALUES (@i);\n  SET @i += 1;\nEND';
  const loopBatches = batchesOf(loop);
  const parts: string[] = [];
  for (let i = 0; i < 10_000; i++) parts.push(WAIT, statement(loop, 'INSERT INTO dbo.t (v) VALUES (@i)', 4, 450), statement(loop, 'SET @i += 1', 5, 3));
  const loopXml = `<RingBufferTarget truncated="0" eventCount="${parts.length}">${parts.join('')}</RingBufferTarget>`;
  const a = measure(5, () => fold(loopXml, loopBatches));

  const generated = Array.from({ length: 5000 }, (_, i) => `INSERT INTO dbo.t (v) VALUES (${i});\nGO`).join('\n');
  const genBatches = batchesOf(generated);
  const genParts: string[] = [];
  for (let i = 0; i < genBatches.length; i++) genParts.push(WAIT, statement(genBatches[i]!.text, `INSERT INTO dbo.t (v) VALUES (${i})`, 1, 450));
  const genXml = `<RingBufferTarget truncated="0" eventCount="${genParts.length}">${genParts.join('')}</RingBufferTarget>`;
  const b = measure(5, () => fold(genXml, genBatches));

  return [
    { name: 'statements: parse + attribute 30,000 events (10,000-iteration loop)', value: ms(a.wall), note: `cpu ${ms(a.cpu)}; ${hostLoad()}`, key: 'statementAttributionLoopMs', metric: a.wall, target: { op: '<=', value: TARGET_MS } },
    { name: 'statements: parse + attribute 10,000 events over 5,000 GO batches', value: ms(b.wall), note: `cpu ${ms(b.cpu)}`, key: 'statementAttributionBatchesMs', metric: b.wall, target: { op: '<=', value: TARGET_MS } },
  ];
}
