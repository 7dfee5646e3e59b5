// Issue 27: the VSIX a user installs carries what the walkthrough opens — the samples — and nothing of the CLI
// package or the repository's Action. Packaged here exactly as `npm run package` does (scripts/package-vsix.js, from
// the bundles `npm test` has just built), then read back from the archive.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { vsixContentProblems } from '../../e2e/support/vsix';
import { root, scratchDir } from './support/pack';
import { zipEntry, zipNames } from './support/zip';
import { localize } from '../../support/manifest';

describe('release: the VSIX (issue 27)', function () {
  this.timeout(300_000);
  let archive: Buffer;
  let names: string[];

  before(function () {
    if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) {
      if (process.env.CI === 'true') assert.fail('dist/ is not built (npm test builds it before mocha)');
      console.log('    dist/ is not built: run `npm run build` to package the VSIX');
      this.skip();
    }
    const out = path.join(scratchDir('lens-vsix-'), 'durability-lens.vsix');
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'package-vsix.js'), '--no-build', '--out', out], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    archive = fs.readFileSync(out);
    names = zipNames(archive);
  });

  it('holds the bundles and none of the sources, tests, node_modules or source maps', () => {
    assert.deepEqual(vsixContentProblems(names), []);
  });

  it('holds every sample the walkthrough offers, byte for byte', () => {
    const samples = fs.readdirSync(path.join(root, 'samples')).filter((f) => f.endsWith('.sql'));
    assert.ok(samples.includes('s1-single-row-inserts.sql'));
    for (const sample of samples) {
      const packed = zipEntry(archive, `extension/samples/${sample}`);
      assert.ok(packed, `extension/samples/${sample}`);
      assert.ok(packed.equals(fs.readFileSync(path.join(root, 'samples', sample))), `${sample} as in the repository`);
    }
  });

  it('holds every file a walkthrough step shows (its media), byte for byte', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const media = manifest.contributes.walkthroughs.flatMap((w: { steps: { media: Record<string, unknown> }[] }) => w.steps.flatMap((s) => Object.values(s.media)))
      .filter((m: unknown): m is string => typeof m === 'string' && /^media\//.test(m));
    assert.ok(media.includes('media/walkthrough/sample.md'), media.join(', '));
    for (const file of media) {
      const packed = zipEntry(archive, `extension/${file}`);
      assert.ok(packed, `extension/${file}`);
      assert.ok(packed.equals(fs.readFileSync(path.join(root, file))), `${file} as in the repository`);
    }
  });

  it('leaves out the CLI package and the Action (the npm tarball and the repository have them)', () => {
    for (const name of ['extension/action.yml', 'extension/bin/durability-lens', 'extension/dist/cli.js', 'extension/dist/cli.commands.js']) assert.ok(!names.includes(name), name);
    assert.ok(!names.some((n) => n.startsWith('extension/scripts/') || n.startsWith('extension/.github/')));
  });

  it('carries the l10n bundles: package.nls.json for the manifest, l10n/bundle.l10n.json for runtime messages', () => {
    for (const file of ['package.nls.json', 'l10n/bundle.l10n.json']) {
      const packed = zipEntry(archive, `extension/${file}`);
      assert.ok(packed, `extension/${file}`);
      assert.ok(packed.equals(fs.readFileSync(path.join(root, file))), `${file} as in the repository`);
    }
    assert.equal(JSON.parse(zipEntry(archive, 'extension/package.json')!.toString('utf8')).l10n, './l10n');
  });

  it('its package.json (with its package.nls.json) contributes the command the walkthrough step links to', () => {
    const nls = JSON.parse(zipEntry(archive, 'extension/package.nls.json')!.toString('utf8'));
    const manifest = localize(JSON.parse(zipEntry(archive, 'extension/package.json')!.toString('utf8')), nls);
    const step = manifest.contributes.walkthroughs[0].steps.find((s: { id: string }) => s.id === 'openSample');
    assert.match(step.description, /\(command:durabilityLens\.openSample\?%5B%22s1-single-row-inserts\.sql%22%5D\)/);
    assert.ok(manifest.contributes.commands.some((c: { command: string }) => c.command === 'durabilityLens.openSample'));
    assert.equal(manifest.files, undefined, 'the npm files list stays out of the extension manifest');
    assert.doesNotMatch(JSON.stringify(manifest), /example\.invalid/);
  });
});
