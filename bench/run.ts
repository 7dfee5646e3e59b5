// `npm run bench [-- NAME...]`: runs every bench/*.bench.ts (or those whose file name contains NAME) and prints one table.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchResult, BenchRun } from './types';

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const dir = path.dirname(new URL(import.meta.url).pathname);
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
  for (const file of files) {
    process.stderr.write(`running ${file} ...\n`);
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { run?: BenchRun };
    if (typeof module.run !== 'function') {
      rows.push({ file, name: '(no run() export)', value: '-', note: 'see bench/types.ts' });
      continue;
    }
    try {
      for (const result of await module.run()) rows.push({ file, name: String(result.name), value: String(result.value), note: result.note === undefined ? undefined : String(result.note) });
    } catch (error) {
      rows.push({ file, name: 'FAILED', value: '-', note: error instanceof Error ? error.message : String(error) });
      process.exitCode = 1;
    }
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
}

void main();
