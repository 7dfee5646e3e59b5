// `npm test`: every test the project has, in order — type check, bundles, mocha (unit, language server,
// stand-in conformance, integration, reliability), then the real-VS-Code end-to-end suite — and one closing
// summary line that adds up the suites' own "N passed, N failed" lines.
// DURABILITY_LENS_SKIP_E2E=1 leaves out the end-to-end suite (it needs root for apt and ~1 GB for code-server); on
// anything but Linux it is left out with the reason printed (code-server's install here is Debian's: apt, Chromium).
// Every phase runs a package's own JavaScript entry with this process's Node (npm's pinned Node 22), never `npx` or
// a shell, so the same file works on Windows, macOS and Linux.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** The JavaScript file behind a package's bin (package.json "bin"), to run with process.execPath. */
function binScript(pkg, name) {
  const manifestPath = require.resolve(`${pkg}/package.json`, { paths: [root] });
  const { bin } = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  return path.join(path.dirname(manifestPath), typeof bin === 'string' ? bin : bin[name]);
}

/** Why the code-server suite cannot run on this machine, or null when it can. */
function e2eSkipReason(env = process.env, platform = process.platform) {
  if (env.DURABILITY_LENS_SKIP_E2E === '1') return 'DURABILITY_LENS_SKIP_E2E=1';
  if (platform !== 'linux') return `the code-server suite needs Linux (Debian's apt and Chromium); this is ${platform}`;
  return null;
}

const SUMMARY = /^(?:\w+:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/;

/** Runs one phase, echoing its output, and returns its exit code and the last summary line it printed. */
function runPhase(name, command, args) {
  // Paths shown relative to the project: `node node_modules/mocha/bin/mocha.js test/**/*.test.ts`.
  const shown = args.map((a) => (path.isAbsolute(a) ? path.relative(root, a) : a));
  console.log(`\n=== ${name}: node ${shown.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let summary = null;
    const failures = [];
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const m = SUMMARY.exec(line.trim());
        if (m) summary = { passed: +m[1], failed: +m[2], skipped: +(m[3] ?? 0) };
        // The reporters' "failed: <title> — <why>" lines, repeated in the closing summary (CI shows the log's tail).
        else if (line.startsWith('failed: ') && failures.length < 50) failures.push(line.trim());
      }
    });
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), summary, failures }));
  });
}

async function main() {
  const node = process.execPath;
  const phases = [
    ['node version', node, [path.join('scripts', 'check-node.js')]],
    ['type check', node, [binScript('typescript', 'tsc'), '--noEmit', '-p', '.']],
    ['bundles', node, [binScript('webpack-cli', 'webpack-cli'), '--mode', 'production']],
    // mocha expands the glob itself (no shell): the same pattern on every platform.
    ['mocha suites', node, [binScript('mocha', 'mocha'), 'test/**/*.test.ts']],
  ];
  const skipE2e = e2eSkipReason();
  if (skipE2e === null) phases.push(['end-to-end (code-server)', node, ['--import', 'tsx', path.join('test', 'e2e', 'run.ts')]]);
  else console.log(`end-to-end (code-server) suite left out: ${skipE2e}`);

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
    for (const f of r.failures) console.log(`          ${f}`);
    if (r.summary) { passed += r.summary.passed; failed += r.summary.failed; skipped += r.summary.skipped; }
    else if (r.code !== 0) failed += 1; // a phase that failed without tests (type errors, build) counts as one failure
  }
  const ran = results.length;
  if (ran < phases.length) { console.log(`  (stopped after ${results[ran - 1].name} failed)`); failed += phases.length - ran; }
  console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(results.every((r) => r.code === 0) && ran === phases.length ? 0 : 1);
}

module.exports = { binScript, e2eSkipReason };

if (require.main === module) main();
