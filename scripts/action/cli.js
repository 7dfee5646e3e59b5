// Which durability-lens the GitHub Action runs: the `cli` input (a .tgz path or glob, a URL, an npm spec), else the
// release tarball of the action's own version, else the CLI built from the action's source. Each is installed into
// a folder of its own with npm (no global install) and started as `node …/bin/durability-lens`, so nothing depends
// on a shell or on .cmd shims (Windows runners).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

class CliError extends Error {}

/**
 * The one file in `cwd` matching a path whose last segment may hold * and ? wildcards. On Windows and macOS runners
 * the file system ignores case (`Durability-Lens-*.TGZ` names durability-lens-0.1.0.tgz there), so the wildcard does
 * too — preferring the exact-case names when a case-sensitive volume holds both. `sys` (platform, path, readdir,
 * exists) is injected by tests to play another runner.
 */
function matchTarball(pattern, cwd, sys = {}) {
  const platform = sys.platform || process.platform;
  const p = sys.path || (platform === 'win32' ? path.win32 : path.posix);
  const readdir = sys.readdir || ((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []));
  const exists = sys.exists || fs.existsSync;
  const full = p.resolve(cwd, pattern);
  const base = p.basename(full);
  if (!/[*?]/.test(base)) return exists(full) ? full : null;
  const dir = p.dirname(full);
  const source = `^${base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`;
  const names = readdir(dir);
  let hits = names.filter((n) => new RegExp(source).test(n));
  if (hits.length === 0 && (platform === 'win32' || platform === 'darwin')) hits = names.filter((n) => new RegExp(source, 'i').test(n));
  hits.sort();
  if (hits.length > 1) throw new CliError(`cli: '${pattern}' matches ${hits.length} files (${hits.join(', ')}); name one`);
  if (hits.length === 0) throw new CliError(`cli: no file matches '${pattern}' in ${dir}`);
  return p.join(dir, hits[0]);
}

/** npm's own JavaScript entry beside this Node (setup-node's layout on every OS), else null. */
function npmCli(node = process.execPath) {
  const candidates = [
    path.join(path.dirname(node), 'node_modules', 'npm', 'bin', 'npm-cli.js'), // Windows: node.exe beside node_modules
    path.join(path.dirname(path.dirname(node)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'), // bin/node → lib/node_modules
  ];
  if (process.env.npm_execpath && /\.[cm]?js$/.test(process.env.npm_execpath)) candidates.unshift(process.env.npm_execpath);
  return candidates.find((c) => fs.existsSync(c)) || null;
}

function runNpm(args, cwd, log) {
  const cli = npmCli();
  log(`durability-lens action: npm ${args.join(' ')}`);
  const result = cli
    ? spawnSync(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'inherit', 'inherit'] })
    : spawnSync('npm', args.map((a) => (process.platform === 'win32' ? `"${a}"` : a)), { cwd, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (result.status !== 0) throw new CliError(`npm ${args[0]} failed (${result.error ? result.error.message : `exit ${result.status}`})`);
}

/** Installs a tarball path, URL or npm spec into a fresh folder; returns the installed launcher. */
function install(spec, scratch, log) {
  const prefix = fs.mkdtempSync(path.join(scratch, 'durability-lens-cli-'));
  fs.writeFileSync(path.join(prefix, 'package.json'), '{ "private": true }\n');
  runNpm(['install', '--no-audit', '--no-fund', '--no-save', '--omit=dev', spec], prefix, log);
  const launcher = path.join(prefix, 'node_modules', 'durability-lens', 'bin', 'durability-lens');
  if (!fs.existsSync(launcher)) throw new CliError(`${spec} did not install a durability-lens package (no ${launcher})`);
  return launcher;
}

async function download(url, scratch, log) {
  log(`durability-lens action: downloading ${url}`);
  const response = await fetch(url, { redirect: 'follow' });
  if (!response.ok) return { status: response.status, file: null };
  const file = path.join(fs.mkdtempSync(path.join(scratch, 'durability-lens-tgz-')), path.basename(new URL(url).pathname) || 'durability-lens.tgz');
  fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return { status: response.status, file };
}

/** Builds dist/cli.js in the action's own checkout (a ref without a release): npm ci, then the CLI bundle only. */
function buildFromSource(actionPath, log) {
  log(`durability-lens action: no release tarball for this ref; building the CLI from ${actionPath}`);
  runNpm(['ci', '--no-audit', '--no-fund'], actionPath, log);
  const webpack = path.join(actionPath, 'node_modules', 'webpack-cli', 'bin', 'cli.js');
  const r = spawnSync(process.execPath, [webpack, '--mode', 'production', '--config-name', 'cli'], { cwd: actionPath, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new CliError(`building dist/cli.js failed (exit ${r.status})`);
  return path.join(actionPath, 'bin', 'durability-lens');
}

/**
 * owner/name of the action's repository: GITHUB_ACTION_REPOSITORY, or — where the runner leaves it empty inside a
 * composite action — the runner's checkout path of the action, …/_actions/<owner>/<name>/<ref>.
 */
function actionRepository(env) {
  if (env.GITHUB_ACTION_REPOSITORY) return env.GITHUB_ACTION_REPOSITORY;
  const m = /[\\/]_actions[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/][^\\/]+[\\/]?$/.exec(env.GITHUB_ACTION_PATH || '');
  return m ? `${m[1]}/${m[2]}` : null;
}

/**
 * The launcher to run with `node`. `env` gives INPUT_CLI's value as `cli`, GITHUB_ACTION_PATH, GITHUB_SERVER_URL,
 * GITHUB_ACTION_REPOSITORY and RUNNER_TEMP.
 */
async function resolveCli({ cli, cwd, env, log }) {
  const scratch = env.RUNNER_TEMP || os.tmpdir();
  if (cli) {
    if (/^https?:\/\//i.test(cli)) {
      const got = await download(cli, scratch, log);
      if (!got.file) throw new CliError(`cli: ${cli} answered HTTP ${got.status}`);
      return install(got.file, scratch, log);
    }
    if (/\.tgz$|[*?]/i.test(cli) || fs.existsSync(path.resolve(cwd, cli))) {
      const file = matchTarball(cli, cwd);
      if (!file) throw new CliError(`cli: ${path.resolve(cwd, cli)} does not exist`);
      return install(file, scratch, log);
    }
    return install(cli, scratch, log); // an npm spec: durability-lens@0.1.0
  }
  const actionPath = env.GITHUB_ACTION_PATH || path.resolve(__dirname, '..', '..');
  if (fs.existsSync(path.join(actionPath, 'dist', 'cli.js'))) return path.join(actionPath, 'bin', 'durability-lens');
  const { version } = JSON.parse(fs.readFileSync(path.join(actionPath, 'package.json'), 'utf8'));
  const repository = actionRepository(env);
  if (repository) {
    const server = env.GITHUB_SERVER_URL || 'https://github.com';
    const url = `${server}/${repository}/releases/download/v${version}/durability-lens-${version}.tgz`;
    const got = await download(url, scratch, log).catch((e) => ({ status: e.message, file: null }));
    if (got.file) return install(got.file, scratch, log);
    log(`durability-lens action: ${url}: ${got.status}`);
  }
  return buildFromSource(actionPath, log);
}

module.exports = { CliError, actionRepository, matchTarball, npmCli, resolveCli };
