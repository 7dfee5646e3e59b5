// `npm test`: every test the project has, in order — type check, bundles, mocha (unit, language server,
// stand-in conformance, integration, reliability), then the real-VS-Code end-to-end suite — and one closing
// summary line that adds up the suites' own "N passed, N failed" lines.
// DURABILITY_LENS_SKIP_E2E=1 leaves out the end-to-end suite (it needs root for apt and ~1 GB for code-server).
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const SUMMARY = /^(?:\w+:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/;

/** Runs one phase, echoing its output, and returns its exit code and the last summary line it printed. */
function runPhase(name, command, args) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let summary = null;
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const m = SUMMARY.exec(line.trim());
        if (m) summary = { passed: +m[1], failed: +m[2], skipped: +(m[3] ?? 0) };
      }
    });
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), summary }));
  });
}

async function main() {
  const phases = [
    ['node version', 'node', ['scripts/check-node.js']],
    ['type check', 'npx', ['tsc', '--noEmit', '-p', '.']],
    ['bundles', 'npx', ['webpack', '--mode', 'production']],
    ['mocha suites', 'npx', ['mocha', 'test/**/*.test.ts']],
  ];
  if (process.env.DURABILITY_LENS_SKIP_E2E !== '1') phases.push(['end-to-end (code-server)', 'node', ['--import', 'tsx', 'test/e2e/run.ts']]);

  const results = [];
  for (const [name, command, args] of phases) {
    const result = await runPhase(name, command, args);
    results.push(result);
    // Without a type-correct build there is nothing meaningful to test.
    if (result.code !== 0 && !result.summary && results.length <= 3) break;
  }

  let passed = 0, failed = 0, skipped = 0;
  console.log('\n=== summary');
  for (const r of results) {
    const counts = r.summary ? `${r.summary.passed} passed, ${r.summary.failed} failed, ${r.summary.skipped} skipped` : '';
    console.log(`  ${r.code === 0 ? 'ok  ' : 'FAIL'}  ${r.name}${counts ? `  (${counts})` : ''}`);
    if (r.summary) { passed += r.summary.passed; failed += r.summary.failed; skipped += r.summary.skipped; }
    else if (r.code !== 0) failed += 1; // a phase that failed without tests (type errors, build) counts as one failure
  }
  const ran = results.length;
  if (ran < phases.length) { console.log(`  (stopped after ${results[ran - 1].name} failed)`); failed += phases.length - ran; }
  console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(results.every((r) => r.code === 0) && ran === phases.length ? 0 : 1);
}

main();
