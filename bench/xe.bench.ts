// Benchmark of the XE reader: parse + aggregate 100,000 ring-buffer-like events (S3's size) with the streaming reader
// (fast scanner), the same reader over the sax package, and a naive DOM approach (@xmldom/xmldom); each runs in its
// own child process with --expose-gc so peaks are honest.
// Runs alone (`node --import tsx bench/xe.bench.ts`) or through bench/run.ts via the exported run().

import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { DOMParser } from '@xmldom/xmldom';
import { aggregateLogFlushEvents, LogFlushAggregator } from '../src/xe/aggregate';
import { measure, type BenchResult } from './types';
import { parseCounterTarget, parseHistogramTarget } from '../src/xe/targetData';
import { convertXeValue, lostEventsOf, XeXmlReader, type XeEvent, type XeField } from '../src/xe/reader';
import { saxTokenize } from '../src/xe/saxTokenizer';
import { scanXml, type XmlTokenizer } from '../src/xe/xmlScanner';


const EVENTS = 100_000;
const TARGET_MS = 1000;
const TARGET_MB = 200;

function field(kind: 'data' | 'action', name: string, type: string, value: string | number, pkg = 'package0'): string {
  return `<${kind} name="${name}"${kind === 'action' ? ' package="package0"' : ''}><type name="${type}" package="${pkg}"/><value>${value}</value></${kind}>`;
}

/** Ring-buffer XML in the documented layout: a flush = log_flush_start, log_flush_complete, databases_log_flush (+ a wait now and then). */
export function generateRingBufferXml(count: number): string {
  const parts: string[] = [];
  let t = Date.parse('2026-11-22T10:00:00.000Z');
  let block = 4_000_000_000;
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    if (kind === 0) t += 1;
    const ts = new Date(t).toISOString();
    const size = 512 * (1 + ((i * 7919) % 120));
    const seq = field('action', 'event_sequence', 'uint64', i + 1);
    let body: string;
    let name: string;
    if (kind === 0) {
      name = 'log_flush_start';
      body = field('data', 'database_id', 'uint32', 7) + field('data', 'log_block_id', 'uint64', block) + field('data', 'write_size', 'uint32', size);
    } else if (kind === 1) {
      name = 'log_flush_complete';
      body =
        field('data', 'database_id', 'uint32', 7) +
        field('data', 'file_id', 'uint32', 2) +
        field('data', 'log_block_id', 'uint64', block++) +
        field('data', 'duration', 'uint64', 200 + ((i * 104729) % 5000)) +
        field('data', 'write_size', 'uint32', size);
    } else if (kind === 2) {
      name = 'databases_log_flush';
      body = field('data', 'database_id', 'uint32', 7) + field('data', 'count', 'uint64', 1);
    } else {
      name = 'databases_log_flush_wait';
      body = field('data', 'database_id', 'uint32', 7) + `<data name="mode"><type name="flush_mode" package="sqlserver"/><value>1</value><text><![CDATA[SYNC]]></text></data>`;
    }
    parts.push(`<event name="${name}" package="sqlserver" timestamp="${ts}">${body}${seq}</event>`);
  }
  return `<RingBufferTarget truncated="0" processingTime="12" totalEventsProcessed="${count}" eventCount="${count}" droppedCount="0" memoryUsed="1048000">\n${parts.join('\n')}\n</RingBufferTarget>`;
}

const ctx = { sessionName: 'durability_lens_bench', target: 'ring_buffer' as const, durationUnit: 'microseconds' as const };

/** The product path: events stream from the tokenizer into the aggregator; no event list is kept. */
function viaStream(xml: string, tokenize: XmlTokenizer): number {
  const agg = new LogFlushAggregator();
  const reader = new XeXmlReader((e) => agg.add(e));
  if (!reader.readDocument(xml, 'bench', tokenize)) throw new Error(reader.parseError ?? 'parse failed');
  return agg.finish({ ...ctx, lost: lostEventsOf(reader.ringBuffer, reader.parsed) }).flushes ?? 0;
}

/** The naive way: whole document in memory as a DOM, then walk it into the same events. */
function viaDom(xml: string): number {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const events: XeEvent[] = [];
  for (let node = doc.documentElement?.firstChild ?? null; node; node = node.nextSibling) {
    if (node.nodeName !== 'event') continue;
    const el = node as unknown as { getAttribute(n: string): string | null; firstChild: typeof node | null };
    const ts = el.getAttribute('timestamp');
    const e: XeEvent = { name: el.getAttribute('name') ?? '', package: el.getAttribute('package') ?? '', timestamp: ts ? new Date(ts) : null, data: {}, actions: {} };
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeName !== 'data' && c.nodeName !== 'action') continue;
      const f = c as unknown as { getAttribute(n: string): string | null; getElementsByTagName(n: string): { item(i: number): { textContent: string | null } | null; length: number } };
      const type = f.getElementsByTagName('type').item(0) as unknown as { getAttribute(n: string): string | null } | null;
      const out: XeField = { value: convertXeValue(f.getElementsByTagName('value').item(0)?.textContent ?? '', type?.getAttribute('name') ?? null) };
      const text = f.getElementsByTagName('text').item(0);
      if (text) out.text = text.textContent ?? '';
      (c.nodeName === 'data' ? e.data : e.actions)[f.getAttribute('name') ?? ''] = out;
    }
    events.push(e);
  }
  return aggregateLogFlushEvents(events, ctx).flushes ?? 0;
}

interface ChildResult {
  mode: string;
  /** Wall-clock time of parse + aggregate. */
  ms: number;
  /** CPU time (user + system, all threads incl. GC) of the same span: stable when other processes compete for cores. */
  cpuMs: number;
  peakExtraMb: number;
  xmlMb: number;
  flushes: number;
}

/** In the child: build the input, settle the heap, then time one parse + aggregate and read the peak RSS it added. */
type Mode = 'scanner' | 'sax' | 'dom';

function child(mode: Mode): ChildResult {
  const xml = generateRingBufferXml(EVENTS);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const rssBefore = process.memoryUsage().rss;
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const flushes = mode === 'dom' ? viaDom(xml) : viaStream(xml, mode === 'sax' ? saxTokenize : scanXml);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  // maxRSS is the process's high-water mark; what parsing added is its rise above the settled RSS (or the old peak).
  const peak = process.resourceUsage().maxRSS * 1024;
  const peakExtraMb = (peak - Math.max(rssBefore, Math.min(maxRssBefore, peak))) / 2 ** 20;
  return { mode, ms, cpuMs: (cpu.user + cpu.system) / 1000, peakExtraMb: Math.max(0, peakExtraMb), xmlMb: xml.length / 2 ** 20, flushes };
}

function runChild(mode: Mode): ChildResult {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', __filename, '--child', mode], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`xe bench child (${mode}) failed: ${r.stderr}`);
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as ChildResult;
}

/** Target data of a run of any length: the counter, a full size histogram (121 values) and a full latency histogram. */
function exactTargetsXml(): { counter: string; sizes: string; latency: string } {
  const counter = `<CounterTarget truncated="0"><Packages><Package name="sqlserver">${['databases_log_flush', 'databases_log_flush_wait', 'log_flush_start', 'log_flush_complete'].map((e) => `<Event name="${e}" count="123456789" />`).join('')}</Package></Packages></CounterTarget>`;
  const slots = (n: number, value: (i: number) => number) => Array.from({ length: n }, (_, i) => `<Slot count="${1000 + i}"><value>${value(i)}</value></Slot>`).join('');
  return {
    counter,
    sizes: `<HistogramTarget truncated="0" buckets="1024">${slots(121, (i) => i * 512)}</HistogramTarget>`,
    latency: `<HistogramTarget truncated="0" buckets="16384">${slots(16384, (i) => 50 + i * 3)}</HistogramTarget>`,
  };
}

/** Reading a run's exact figures: one query's target_data, parsed and summarised — independent of the flush count. */
function exactTargetsRow(): BenchResult {
  const xml = exactTargetsXml();
  const t = measure(9, () => {
    const agg = new LogFlushAggregator();
    const counter = parseCounterTarget(xml.counter);
    const sizes = { ...parseHistogramTarget(xml.sizes), event: 'log_flush_complete', field: 'write_size' };
    const latency = { ...parseHistogramTarget(xml.latency), event: 'log_flush_complete', field: 'duration' };
    return agg.finish({ ...ctx, exact: { counter, histogram: sizes, latency } }).flushes;
  });
  const kb = (xml.counter.length + xml.sizes.length + xml.latency.length) / 1024;
  return {
    name: 'xe exact targets read + summarise',
    value: `${t.cpu.toFixed(1)} ms`,
    note: `CPU, median of 9; ${kb.toFixed(0)} KB of target_data in 1 round trip whatever the run's length (16,384 latency slots full); target ≤ 50 ms: ${t.cpu <= 50 ? 'met' : 'MISSED'}`,
  };
}

export async function run(): Promise<BenchResult[]> {
  const exact = exactTargetsRow();
  const fast = runChild('scanner');
  const sax = runChild('sax');
  const dom = runChild('dom');
  if (fast.flushes !== sax.flushes || fast.flushes !== dom.flushes) {
    throw new Error(`readers disagree: scanner ${fast.flushes}, sax ${sax.flushes}, DOM ${dom.flushes} flushes`);
  }
    const mem = (r: ChildResult) => Math.max(r.peakExtraMb, 0.01);
  // On a machine busier than its cores, wall time measures the queue, not the parser: judge on CPU time then.
  const load = loadavg()[0]!;
  const cores = availableParallelism();
  const busy = load > cores;
  const judged = busy ? fast.cpuMs : fast.ms;
  const basis = busy ? `CPU time (load ${load.toFixed(1)} on ${cores} cores)` : 'wall time';
  const msText = (n: number) => `${n.toFixed(0)} ms`;
  const mbText = (n: number) => `${n.toFixed(1)} MB`;
  const ratio = (n: number) => `${n.toFixed(1)}x`;
  return [
    { name: 'xe input: ring-buffer XML', value: mbText(fast.xmlMb), note: `${EVENTS} events; ${fast.flushes} flushes counted identically by all three readers` },
    { name: 'xe stream parse+aggregate, wall', value: msText(fast.ms), note: `target ≤ ${TARGET_MS} ms judged on ${basis}: ${judged <= TARGET_MS ? 'met' : 'MISSED'}` },
    { name: 'xe stream parse+aggregate, CPU', value: msText(fast.cpuMs), note: 'user + system, all threads (GC included)' },
    { name: 'xe stream peak extra RSS', value: mbText(fast.peakExtraMb), note: `target ≤ ${TARGET_MB} MB: ${fast.peakExtraMb <= TARGET_MB ? 'met' : 'MISSED'}` },
    { name: 'xe same reader over sax, CPU', value: msText(sax.cpuMs), note: `wall ${msText(sax.ms)}, peak ${mbText(sax.peakExtraMb)}; why the product does not tokenize with sax` },
    { name: 'xe naive DOM (@xmldom), CPU', value: msText(dom.cpuMs), note: `wall ${msText(dom.ms)}, peak ${mbText(dom.peakExtraMb)}; whole document as a DOM, then walked` },
    { name: 'xe DOM / stream CPU time', value: ratio(dom.cpuMs / fast.cpuMs), note: '> 1: streaming is faster' },
    { name: 'xe DOM / stream peak memory', value: ratio(mem(dom) / mem(fast)), note: '> 1: streaming uses less' },
    { name: 'xe sax / stream CPU time', value: ratio(sax.cpuMs / fast.cpuMs), note: '> 1: the scanner beats sax' },
    exact,
  ];
}

if (require.main === module) {
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    const arg = process.argv[i + 1];
    process.stdout.write(JSON.stringify(child(arg === 'dom' || arg === 'sax' ? arg : 'scanner')) + '\n');
  } else {
    run().then(
      (rows) => {
        for (const row of rows) console.log(`${row.name.padEnd(36)} ${row.value.padStart(10)}  ${row.note ?? ''}`);
      },
      (err) => {
        console.error(err);
        process.exitCode = 1;
      },
    );
  }
}
