// Guards every npm script that needs Node 22 (tedious 20, webpack-cli 7, VS Code >= 1.101's extension host).
// `npm ci` installs the pinned Node 22 for this platform (the optional packages of the scripts/node22 workspace) and
// npm puts its bin first on PATH for every script, so the Node that ran npm only has to run npm. When a script still
// starts on an older Node, this says why — which package was expected for this platform, and what to do.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const MIN_MAJOR = 22;
const root = path.resolve(__dirname, '..');
const workspace = path.join(root, 'scripts', 'node22', 'package.json');

/** The pinned Node package for a platform and CPU, read from scripts/node22/package.json (os/cpu as npm's). */
function pinnedNodePackage(platform, arch, packages = JSON.parse(fs.readFileSync(workspace, 'utf8')).optionalDependencies) {
  const npmOs = platform === 'win32' ? 'win' : platform;
  const candidates = [`node-${npmOs}-${arch}`, `node-bin-${npmOs}-${arch}`];
  const name = candidates.find((c) => Object.prototype.hasOwnProperty.call(packages, c));
  return name ? { name, version: packages[name] } : null;
}

/**
 * The message for a Node too old to run the project's scripts, or null when `version` is fine.
 * `installed(name)` says whether node_modules holds that package.
 */
function nodeProblem({ version, platform, arch, installed }) {
  const major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (major >= MIN_MAJOR) return null;
  const head = `Node ${version} is running, but Durability Lens's scripts need Node >= ${MIN_MAJOR} (tedious 20, webpack-cli 7, VS Code >= 1.101).`;
  const pinned = pinnedNodePackage(platform, arch);
  if (!pinned) {
    return `${head}\nThere is no pinned Node ${MIN_MAJOR} package for ${platform}-${arch} (scripts/node22/package.json lists the platforms that have one).\n` +
      `Install Node ${MIN_MAJOR} (https://nodejs.org), then run \`npm ci\` and the script again with it.`;
  }
  if (!installed(pinned.name)) {
    return `${head}\n\`npm ci\` installs Node ${MIN_MAJOR} for ${platform}-${arch} as the optional package ${pinned.name}@${pinned.version}, but node_modules does not hold it\n` +
      '(not installed yet, or installed with --omit=optional / --no-optional, or its download failed).\n' +
      `Run \`npm ci\` again (without --omit=optional), or install Node ${MIN_MAJOR} (https://nodejs.org) and run the script with it.`;
  }
  return `${head}\n${pinned.name} (Node ${pinned.version}) is installed, but this script was not started through npm, which puts it first on PATH.\n` +
    'Run it through npm (`npm test`, `npm run build`, `npx …`), or install Node 22 and run it with that.';
}

module.exports = { MIN_MAJOR, nodeProblem, pinnedNodePackage };

if (require.main === module) {
  const problem = nodeProblem({
    version: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    installed: (name) => fs.existsSync(path.join(root, 'node_modules', name, 'package.json')),
  });
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
