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
    output: { path: path.resolve(__dirname, 'dist'), filename: '[name].js', libraryTarget: 'commonjs2' },
    resolve: { extensions: ['.ts', '.js'], conditionNames: ['node', 'require', 'default'] },
    module: { rules: [tsRule] },
    externals: { vscode: 'commonjs vscode' },
    devtool: 'source-map',
    performance: { hints: false },
    ignoreWarnings: [/Critical dependency/, /Can't resolve '(bufferutil|utf-8-validate)'/],
    ...extra,
  };
}

module.exports = [
  nodeBundle('extension', './src/extension/extension.ts'),
  nodeBundle('server', './src/server/server.ts'),
  nodeBundle('cli', './src/cli/main.ts'),
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
