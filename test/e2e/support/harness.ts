// A tiny sequential test runner for the e2e run: each test gets a deadline and a screenshot helper,
// a failing test leaves a FAILED-<name>.png, and the run ends with the plain "N passed, N failed" line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { resultsDir } from './paths';

export interface E2eContext {
  page: Page;
  /** Absolute path of the run's workspace copy (what code-server has open). */
  workspace: string;
  /** Writes test-results/e2e/<nn>-<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

export interface E2eTest {
  name: string;
  /** Whole-test deadline; individual waits inside use shorter ones so the failure says what was missing. */
  timeoutMs?: number;
  /**
   * A product bug this test reproduces, reported to its owner: a failure is printed as "known bug" and not
   * counted; a pass is counted and says the mark can go (the reliability suites' "BUG (skipped)" convention).
   */
  knownBug?: string;
  run(ctx: E2eContext): Promise<void>;
}

export interface Outcome {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
  /** Set when a test marked knownBug failed: shown, not counted as a failure. */
  knownBug?: string;
}

let shotCounter = 0;

export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
}

export function screenshotter(page: Page): (name: string) => Promise<string> {
  return async (name) => {
    fs.mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${String(++shotCounter).padStart(2, '0')}-${slug(name)}.png`);
    await page.screenshot({ path: file });
    console.log(`    screenshot: ${path.relative(process.cwd(), file)}`);
    return file;
  };
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export async function runTests(tests: readonly E2eTest[], ctx: E2eContext): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const test of tests) {
    const started = Date.now();
    console.log(`  ▶ ${test.name}`);
    try {
      await withDeadline(test.run(ctx), test.timeoutMs ?? 60_000, test.name);
      if (test.knownBug) console.log(`    note: passes now although marked knownBug (${test.knownBug}): remove the mark`);
      outcomes.push(report({ name: test.name, ok: true, ms: Date.now() - started }));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await ctx.screenshot(`${test.knownBug ? 'KNOWN-BUG' : 'FAILED'}-${test.name}`).catch(() => undefined);
      // A known bug's failure is expected: it is reported as such and does not fail the run.
      outcomes.push(report({ name: test.name, ok: !!test.knownBug, ms: Date.now() - started, error, ...(test.knownBug ? { knownBug: test.knownBug } : {}) }));
    }
  }
  return outcomes;
}

export function report(o: Outcome): Outcome {
  const mark = o.knownBug ? `✘ KNOWN BUG (not counted: ${o.knownBug})` : o.ok ? '✔' : '✘';
  console.log(`  ${mark} ${o.name} (${o.ms} ms)${o.error ? `\n      ${o.error.split('\n').join('\n      ')}` : ''}`);
  return o;
}
