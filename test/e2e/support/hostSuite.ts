// Runs test/e2e/host/index.ts inside code-server's extension host: bundles it with esbuild, opens the
// workbench with the `payload` URL parameter (extensionDevelopmentPath + extensionTestsPath) and collects
// the per-test result lines from codeAutomationLog / the page console until codeAutomationExit is called.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { RESULT_MARKER } from '../host/marker';
import { recordConsole } from './browser';
import { node22Env, run } from './exec';
import type { Outcome } from './harness';
import { extensionsDir, hostBundleDir, repoRoot } from './paths';
import { openWorkbench } from './workbench';

export async function bundleHostTests(): Promise<string> {
  const out = path.join(hostBundleDir, 'index.js');
  await run(path.join(repoRoot, 'node_modules', '.bin', 'esbuild'), [
    path.join(repoRoot, 'test', 'e2e', 'host', 'index.ts'), '--bundle', '--platform=node', '--format=cjs',
    '--target=node22', '--external:vscode', `--outfile=${out}`, '--log-level=warning',
  ], { cwd: repoRoot, env: node22Env() });
  return out;
}

/** The folder code-server unpacked our VSIX into: the host tests run against what ships, not the repo. */
export function installedExtensionDir(): string {
  const name = fs.readdirSync(extensionsDir).find((d) => d.startsWith('durability-lens.durability-lens-'));
  if (!name) throw new Error(`durability-lens is not installed in ${extensionsDir}`);
  return path.join(extensionsDir, name);
}

interface HostLine { name?: string; ok?: boolean; ms?: number; error?: string; done?: boolean; total?: number; failed?: number; metrics?: Record<string, number> }

/** Result lines into `into`; `metrics` lines (figures the host measured, e.g. activation time) into `metrics`. */
export function parseResultLines(text: string, into: Map<string, Outcome>, done: { seen: boolean }, metrics: Record<string, number> = {}): void {
  for (const line of text.split('\n')) {
    const at = line.indexOf(RESULT_MARKER);
    if (at < 0) continue;
    const json = line.slice(at + RESULT_MARKER.length).trim();
    let parsed: HostLine;
    try {
      parsed = JSON.parse(json.slice(0, json.lastIndexOf('}') + 1));
    } catch {
      continue; // a console echo that wrapped or decorated the line; the other channel carries it too
    }
    if (parsed.metrics) {
      for (const [key, value] of Object.entries(parsed.metrics)) if (typeof value === 'number' && Number.isFinite(value)) metrics[key] = value;
    } else if (parsed.done) done.seen = true;
    else if (parsed.name && !into.has(parsed.name)) {
      into.set(parsed.name, { name: `extension host: ${parsed.name}`, ok: !!parsed.ok, ms: parsed.ms ?? 0, error: parsed.error });
    }
  }
}

export async function runHostSuite(context: BrowserContext, serverUrl: string, workspace: string, consoleSink: string[], metrics: Record<string, number> = {}, timeoutMs = 180_000): Promise<Outcome[]> {
  const bundle = await bundleHostTests();
  const devPath = installedExtensionDir();
  const page = await context.newPage();
  recordConsole(page, consoleSink);
  const results = new Map<string, Outcome>();
  const done = { seen: false };
  let exitCode: number | undefined;
  let onExit: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => { onExit = resolve; });
  // The workbench calls these when it runs under automation: log lines, then the tests' exit code.
  await page.exposeFunction('codeAutomationLog', (_type: string, args: unknown[]) => {
    parseResultLines((args ?? []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '), results, done, metrics);
  });
  await page.exposeFunction('codeAutomationExit', (code: number) => { exitCode = code; onExit(); });
  page.on('console', (msg) => parseResultLines(msg.text(), results, done, metrics));

  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://remote${devPath}`],
    ['extensionTestsPath', `vscode-remote://remote${bundle}`],
  ]);
  await openWorkbench(page, serverUrl, workspace, `&payload=${encodeURIComponent(payload)}`);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), timeoutMs); });
  const how = await Promise.race([exited.then(() => 'exit' as const), timedOut]);
  clearTimeout(timer);
  await page.close().catch(() => undefined);

  const outcomes = [...results.values()];
  if (how === 'timeout') {
    outcomes.push({ name: 'extension host: suite finished', ok: false, ms: timeoutMs, error: `codeAutomationExit not called within ${timeoutMs} ms` });
  } else if (!done.seen || outcomes.length === 0) {
    outcomes.push({ name: 'extension host: suite reported its results', ok: false, ms: 0, error: `exit code ${exitCode}, but no result lines arrived (did the suite load? see the extension host log)` });
  } else if ((exitCode === 0) !== outcomes.every((o) => o.ok)) {
    outcomes.push({ name: 'extension host: exit code agrees with results', ok: false, ms: 0, error: `exit code ${exitCode}` });
  }
  return outcomes;
}
