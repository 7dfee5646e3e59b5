// The bundles a user installs (the VSIX, the npm tarball) carry no path of the machine that built them: a dependency
// that finds its own files through import.meta.url gets that path baked in by webpack, and then looks for (or runs)
// files at that path on the user's machine. The `open` package did exactly this (webpack.config.js, src/db/noBrowser.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './support/pack';

/** The spellings a build path takes inside a bundle: as written, JSON-escaped (Windows backslashes), as a file URL. */
function buildPathSpellings(dir: string): string[] {
  return [...new Set([dir, JSON.stringify(dir).slice(1, -1), pathToFileURL(dir).href])];
}

describe('release: the bundles carry no path of the build machine', function () {
  let bundles: string[];

  before(function () {
    const dist = path.join(root, 'dist');
    if (!fs.existsSync(path.join(dist, 'extension.js'))) {
      if (process.env.CI === 'true') assert.fail('dist/ is not built (npm test builds it before mocha)');
      console.log('    dist/ is not built: run `npm run build` first');
      this.skip();
    }
    bundles = fs.readdirSync(dist).filter((f) => f.endsWith('.js')).map((f) => path.join(dist, f));
  });

  it('no bundle holds the repository path (nor a file: URL of it)', () => {
    assert.ok(bundles.some((b) => path.basename(b) === 'cli.commands.js'), bundles.join(', '));
    const found: string[] = [];
    for (const bundle of bundles) {
      const text = fs.readFileSync(bundle, 'utf8');
      for (const spelling of buildPathSpellings(root)) {
        const at = text.indexOf(spelling);
        if (at >= 0) found.push(`${path.basename(bundle)}: …${text.slice(Math.max(0, at - 80), at + spelling.length + 40)}…`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('the interactive browser sign-in gets our stub, not the `open` package', () => {
    const cli = fs.readFileSync(path.join(root, 'dist', 'cli.commands.js'), 'utf8');
    assert.ok(cli.includes('Durability Lens does not open a web browser to sign in'), 'stub bundled where @azure/identity imports open');
    assert.ok(!cli.includes('xdg-open'), 'the open package (and its xdg-open lookup) is not bundled');
  });
});
