// `npm run package`: the production bundles (webpack), then `vsce package` → durability-lens.vsix. The extension
// ships as bundles only (--no-dependencies; .vscodeignore keeps sources, tests and node_modules out and the samples
// and l10n bundle in). --no-rewrite-relative-links: the README links docs/ relatively. --allow-missing-repository:
// a clone has no repository address of its own to claim; the release workflow sets the real one from GitHub.
// vsce refuses a package.json "files" list beside a .vscodeignore, and "files" is the npm tarball's (the CLI), so vsce
// runs on a staged copy of the project whose package.json has no "files"; .vscodeignore decides what ships.
// Usage: node scripts/package-vsix.js [--no-build] [--out FILE]
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function binScript(pkg, name) {
  const manifestPath = require.resolve(`${pkg}/package.json`, { paths: [root] });
  const { bin } = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  return path.join(path.dirname(manifestPath), typeof bin === 'string' ? bin : bin[name]);
}

/** Top-level entries never staged (caches, installs, build output of other tools, earlier packages). */
const NOT_STAGED = new Set(['.git', 'node_modules', '.e2e', '.tools', '.bench', 'test-results', 'out']);

/** A copy of the project for vsce: what .vscodeignore may keep, package.json without the npm "files" list. */
function stage() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durability-lens-vsix-'));
  for (const name of fs.readdirSync(root)) {
    if (NOT_STAGED.has(name) || /\.(vsix|tgz)$/.test(name)) continue;
    fs.cpSync(path.join(root, name), path.join(dir, name), { recursive: true, filter: (src) => !src.endsWith('.map') });
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  delete manifest.files;
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

function run(label, args, cwd = root) {
  console.log(`package: ${label}`);
  const r = spawnSync(process.execPath, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`package: ${label} failed (${r.error ? r.error.message : `exit ${r.status}`})`);
    process.exit(r.status || 1);
  }
}

/** vsce's arguments for a VSIX at `out` (a test packages with the same ones). */
function vsceArgs(out) {
  return ['package', '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '--out', out];
}

function main(argv) {
  const outIndex = argv.indexOf('--out');
  const out = path.resolve(root, outIndex >= 0 ? argv[outIndex + 1] : 'durability-lens.vsix');
  if (!argv.includes('--no-build')) run('webpack --mode production', [binScript('webpack-cli', 'webpack-cli'), '--mode', 'production']);
  const dir = stage();
  try {
    run(`vsce ${vsceArgs(out).join(' ')}`, [binScript('@vscode/vsce', 'vsce'), ...vsceArgs(out)], dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`package: ${out}`);
}

module.exports = { binScript, stage, vsceArgs };

if (require.main === module) main(process.argv.slice(2));
