// Bundles: extension host (node), language server (node), CLI (node), webview (web).
// esbuild-loader strips types only; `npm run typecheck` (tsc --noEmit) checks them.
const path = require('path');

const tsRule = { test: /\.ts$/, exclude: /node_modules/, loader: 'esbuild-loader', options: { target: 'es2023' } };

/** @param {string} name @param {string} entry @param {object} extra */
function nodeBundle(name, entry, extra = {}) {
  return {
    name,
    target: 'node22',
    entry: { [name]: entry },
    // Chunks loaded on first use (the tedious driver: src/db/loadDriver.ts) get the bundle's name as a prefix.
    output: { path: path.resolve(__dirname, 'dist'), filename: '[name].js', chunkFilename: `${name}.[name].js`, libraryTarget: 'commonjs2' },
    // `open` (only @azure/identity's interactive browser sign-in uses it) is replaced by src/db/noBrowser.ts.
    resolve: { extensions: ['.ts', '.js'], conditionNames: ['node', 'require', 'default'], alias: { open$: path.resolve(__dirname, 'src/db/noBrowser.ts') } },
    module: { rules: [tsRule] },
    externals: { vscode: 'commonjs vscode' },
    devtool: 'source-map',
    performance: { hints: false },
    // One file per lazy chunk (the driver with its dependencies), not vendor splits with numeric names.
    optimization: { splitChunks: false },
    ignoreWarnings: [/Critical dependency/, /Can't resolve '(bufferutil|utf-8-validate)'/],
    ...extra,
  };
}

module.exports = [
  // entry.ts times activation around extension.ts; the driver is a chunk of its own (dist/extension.driver.js).
  nodeBundle('extension', './src/extension/entry.ts'),
  nodeBundle('server', './src/server/server.ts'),
  // The CLI: dist/cli.js (dispatch and `analyze`) and dist/cli.commands.js, the commands that connect, loaded when one
  // runs (src/cli/commands/index.ts). Other dynamic imports (the driver, the MCP server) stay inside their chunk.
  nodeBundle('cli', './src/cli/main.ts', { module: { rules: [tsRule], parser: { javascript: { dynamicImportMode: 'eager' } } } }),
  {
    name: 'webview',
    target: 'web',
    entry: { webview: './src/webview/main.ts' },
    output: { path: path.resolve(__dirname, 'dist'), filename: '[name].js' },
    resolve: { extensions: ['.ts', '.js'] },
    module: { rules: [tsRule] },
    devtool: 'source-map',
    performance: { hints: false },
  },
];
