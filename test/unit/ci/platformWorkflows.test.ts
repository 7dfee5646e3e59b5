// The hosted-CI matrix (.github/workflows/ci.yml) and the release (.github/workflows/release.yml) cannot run here:
// actionlint validates them — with action.yml, which ci.yml uses as `./` (actionlint checks the inputs it is given) —
// and these tests check what they promise: npm ci + npm test on Windows, macOS and Linux; a tag builds, tests and
// attaches the VSIX and the tarball to a release and publishes only where a token is configured.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { actionlint, requireActionlint } from './support/actionlint';

const root = path.resolve(__dirname, '../../..');
const CI = path.join(root, '.github/workflows/ci.yml');
const RELEASE = path.join(root, '.github/workflows/release.yml');

interface Step { uses?: string; run?: string; if?: string; with?: Record<string, string>; env?: Record<string, string>; shell?: string }
interface Job { 'runs-on': string; strategy?: { matrix: Record<string, unknown> }; steps: Step[]; env?: Record<string, string>; needs?: string | string[]; permissions?: Record<string, string> }
interface Workflow { on: Record<string, unknown>; permissions?: Record<string, string>; jobs: Record<string, Job> }

const read = (file: string) => load(fs.readFileSync(file, 'utf8')) as Workflow;
const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');

describe('ci: the build-and-test matrix and the release workflow (issue 27)', () => {
  it('both pass actionlint (with action.yml as the local action), and a broken copy does not', function () {
    const binary = requireActionlint(this);
    const good = actionlint(binary, [CI, RELEASE]);
    assert.ok(good.ok, good.output);
    // A copy of the repository's .github and action.yml with one typo in each workflow: both are reported.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lens-actionlint-'));
    try {
      fs.mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true });
      fs.mkdirSync(path.join(dir, '.git'));
      fs.copyFileSync(path.join(root, 'action.yml'), path.join(dir, 'action.yml'));
      fs.writeFileSync(path.join(dir, '.github/workflows/ci.yml'), fs.readFileSync(CI, 'utf8').replace('save-baseline: baseline.json', 'save-baselin: baseline.json'));
      fs.writeFileSync(path.join(dir, '.github/workflows/release.yml'), fs.readFileSync(RELEASE, 'utf8').replace('${{ needs.build.outputs.version }}', '${{ needs.biuld.outputs.version }}'));
      const bad = actionlint(binary, ['.github/workflows/ci.yml', '.github/workflows/release.yml'], dir);
      assert.equal(bad.ok, false);
      assert.match(bad.output, /input "save-baselin" is not defined in action/);
      assert.match(bad.output, /biuld/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs npm ci and npm test on windows-latest, macos-latest and ubuntu-latest, with Node 20 only for npm', () => {
    const wf = read(CI);
    const job = wf.jobs.test!;
    assert.deepEqual(job.strategy?.matrix.os, ['windows-latest', 'macos-latest', 'ubuntu-latest']);
    assert.equal(job['runs-on'], '${{ matrix.os }}');
    const setupNode = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    assert.equal(setupNode.with?.['node-version'], '20', 'the pinned Node 22 comes from npm ci');
    assert.match(runs(job), /^npm ci --no-audit --no-fund$/m);
    const test = job.steps.find((s) => s.run === 'npm test')!;
    assert.equal(test.env?.DURABILITY_LENS_SKIP_E2E, '1', 'the code-server suite is Linux/apt-only; .ci/run runs it');
    // The workflow tests fail in CI without actionlint: every runner installs it and names the binary.
    assert.match(runs(job), /go install github\.com\/rhysd\/actionlint\/cmd\/actionlint@v\d+\.\d+\.\d+/);
    assert.match(runs(job), /ACTIONLINT=\$\(go env GOPATH\)\/bin\/\$exe/);
    assert.equal(wf.permissions?.contents, 'read');
  });

  it('runs the repository\'s own action against a SQL Server container: baseline, then a gate on it', () => {
    const job = read(CI).jobs.action!;
    const uses = job.steps.filter((s) => s.uses === './');
    assert.equal(uses.length, 2);
    assert.equal(uses[0]!.with?.['save-baseline'], 'baseline.json');
    assert.equal(uses[1]!.with?.baseline, 'baseline.json');
    assert.match(runs(job), /^npm pack$/m);
  });

  it('a vX.Y.Z tag builds, tests, packages the VSIX and the tarball, and attaches both to a GitHub release', () => {
    const wf = read(RELEASE);
    assert.deepEqual(wf.on, { push: { tags: ['v*.*.*'] } }, 'a moving major tag (v1) is not a release');
    const build = wf.jobs.build!;
    const script = runs(build);
    for (const step of [/tag \$GITHUB_REF_NAME does not match package\.json version/, /^npm ci --no-audit --no-fund$/m, /^npm run package$/m, /^npm pack$/m]) assert.match(script, step);
    assert.ok(build.steps.some((s) => s.run === 'npm test'), 'tests before anything is released');
    assert.match(script, /npm pkg set repository\.type=git "repository\.url=\$GITHUB_SERVER_URL\/\$GITHUB_REPOSITORY\.git"/);
    // The tests read the committed package.json (the tarball test: no repository address of its own), so the address
    // is set after them and before the packages that carry it.
    const at = (pattern: RegExp) => build.steps.findIndex((s) => pattern.test(s.run ?? ''));
    assert.ok(at(/^npm test$/) < at(/npm pkg set repository/), 'npm test runs on the committed package.json');
    assert.ok(at(/npm pkg set repository/) < at(/npm run package/) && at(/npm pkg set repository/) < at(/^npm pack$/m));
    const release = wf.jobs['github-release']!;
    assert.equal(release.permissions?.contents, 'write');
    assert.match(runs(release), /gh release create "\$GITHUB_REF_NAME"\s+"durability-lens-\$VERSION\.vsix" "durability-lens-\$VERSION\.tgz"/);
  });

  it('publishes to the VS Code Marketplace and Open VSX only when their tokens are configured', () => {
    const job = read(RELEASE).jobs.publish!;
    assert.equal(job.env?.VSCE_PAT, '${{ secrets.VSCE_PAT }}');
    assert.equal(job.env?.OVSX_PAT, '${{ secrets.OVSX_PAT }}');
    const marketplace = job.steps.find((s) => /vsce@[\d.]+ publish/.test(s.run ?? ''))!;
    const openVsx = job.steps.find((s) => /ovsx@[\d.]+ publish/.test(s.run ?? ''))!;
    assert.equal(marketplace.if, "env.VSCE_PAT != ''");
    assert.equal(openVsx.if, "env.OVSX_PAT != ''");
    assert.doesNotMatch(`${marketplace.run}${openVsx.run}`, /secrets\.|-p \$|--pat/, 'tokens reach the tools through the environment only');
  });
});
