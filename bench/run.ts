// `npm run bench [-- NAME...] [-- --json]`: runs every bench/*.bench.ts (or those whose file name contains NAME) and
// prints one table; with --json it also writes bench/results.json: every keyed figure, its target and whether it met it.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult, BenchRun } from './types';

interface KeyedFigure {
  value: number;
  target?: { op: '>=' | '<='; value: number };
  met?: boolean;
  name: string;
  note?: string;
}

function targetMet(value: number, target: { op: '>=' | '<='; value: number }): boolean {
  return target.op === '>=' ? value >= target.value : value <= target.value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const filters = args.filter((a) => a !== '--json');
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const files = fs.readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
    .sort();
  if (files.length === 0) {
    process.stderr.write(`no bench file matches ${filters.join(', ')} in ${dir}\n`);
    process.exitCode = 2;
    return;
  }
  const rows: Array<BenchResult & { file: string }> = [];
  const keyed: Record<string, KeyedFigure> = {};
  for (const file of files) {
    process.stderr.write(`running ${file} ...\n`);
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { run?: BenchRun };
    if (typeof module.run !== 'function') {
      rows.push({ file, name: '(no run() export)', value: '-', note: 'see bench/types.ts' });
      continue;
    }
    try {
      for (const result of await module.run()) {
        let note = result.note === undefined ? undefined : String(result.note);
        if (result.key !== undefined && typeof result.metric === 'number' && Number.isFinite(result.metric)) {
          const figure: KeyedFigure = { value: result.metric, name: String(result.name), note };
          if (result.target) {
            figure.target = result.target;
            figure.met = targetMet(result.metric, result.target);
            const verdict = `target ${result.target.op} ${result.target.value}: ${figure.met ? 'met' : 'NOT met'}`;
            note = note ? `${note}; ${verdict}` : verdict;
          }
          keyed[result.key] = figure;
        }
        rows.push({ file, name: String(result.name), value: String(result.value), note });
      }
    } catch (error) {
      rows.push({ file, name: 'FAILED', value: '-', note: error instanceof Error ? error.message : String(error) });
      process.exitCode = 1;
    }
  }
  // Issue 33: the XE reader on the real form against the T-SQL bench's byte scan, both from this run (xe.bench.ts also
  // holds it to a byte scan of the XML itself, xeShareOfByteScan).
  const xe = keyed.xeMBps;
  const scan = keyed.byteScanMBps;
  if (xe && scan && scan.value > 0) {
    const target = { op: '>=' as const, value: 0.4 };
    const value = Number((xe.value / scan.value).toFixed(3));
    const met = targetMet(value, target);
    keyed.xeOverByteScan = { value, target, met, name: 'xeMBps ÷ byteScanMBps (same run)', note: `${xe.value} ÷ ${scan.value} MB/s` };
    rows.push({ file: 'run.ts', name: 'xeMBps ÷ byteScanMBps (same run)', value: value.toFixed(2), note: `${xe.value} ÷ ${scan.value} MB/s; target >= 0.4: ${met ? 'met' : 'NOT met'}` });
  }
  const widths = {
    file: Math.max(4, ...rows.map((r) => r.file.length)),
    name: Math.max(4, ...rows.map((r) => r.name.length)),
    value: Math.max(5, ...rows.map((r) => r.value.length)),
  };
  const line = (f: string, n: string, v: string, note: string): string =>
    `${f.padEnd(widths.file)}  ${n.padEnd(widths.name)}  ${v.padStart(widths.value)}  ${note}`.trimEnd();
  process.stdout.write(`\n${line('file', 'name', 'value', 'note')}\n`);
  process.stdout.write(`${'-'.repeat(widths.file + widths.name + widths.value + 10)}\n`);
  for (const r of rows) process.stdout.write(`${line(r.file, r.name, r.value, r.note ?? '')}\n`);
  if (json) {
    const out = path.join(dir, 'results.json');
    const document = {
      measuredAt: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', loadAverage1m: os.loadavg()[0], node: process.version },
      files,
      results: Object.fromEntries(Object.entries(keyed).map(([k, f]) => [k, f.value])),
      details: keyed,
    };
    fs.writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
    process.stdout.write(`\nwrote ${out} (${Object.keys(keyed).length} keyed figures)\n`);
  }
}

void main();
