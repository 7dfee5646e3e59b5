// .github/workflows/real-server.yml cannot run here (no container engine): actionlint (a Go module, installed by
// .ci/run) validates it, and these tests check that it runs the integration suite against SQL Server 2019, 2022 and
// 2025 as a least-privileged login and uploads the doctor report — and that the suite really reads
// DURABILITY_LENS_TEST_SERVER. Locally the actionlint test skips (with the reason) when the binary is absent; in CI
// (CI=true) its absence is a failure.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { REAL_SERVER_ENV, realServerConnectionString, useTestServer } from '../../integration/support';

const root = resolve(__dirname, '../../..');
const WORKFLOW = join(root, '.github/workflows/real-server.yml');

/** ACTIONLINT, PATH, then where `go install` puts it ($GOBIN, $GOPATH/bin, ~/go/bin) and .ci/run's .tools/bin. */
function findActionlint(): string | null {
  const candidates = [
    process.env.ACTIONLINT,
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'actionlint')),
    process.env.GOBIN ? join(process.env.GOBIN, 'actionlint') : undefined,
    process.env.GOPATH ? join(process.env.GOPATH, 'bin', 'actionlint') : undefined,
    join(homedir(), 'go', 'bin', 'actionlint'),
    join(root, '.tools', 'bin', 'actionlint'),
  ];
  return candidates.find((c): c is string => !!c && existsSync(c)) ?? null;
}

describe('ci: the real-server workflow', () => {
  const text = readFileSync(WORKFLOW, 'utf8');

  it('passes actionlint (skipped locally only when actionlint is not installed; a failure in CI)', function () {
    const actionlint = findActionlint();
    if (!actionlint) {
      if (process.env.CI === 'true') assert.fail('actionlint is not installed; .ci/run installs it with `go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12`');
      this.skip(); // reason: actionlint not installed here (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)
    }
    const result = spawnSync(actionlint, ['-no-color', WORKFLOW], { encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    // The same actionlint rejects a broken workflow: the check can fail.
    const dir = mkdtempSync(join(tmpdir(), 'lens-actionlint-'));
    try {
      const broken = join(dir, 'broken.yml');
      writeFileSync(broken, text.replace('runs-on: ubuntu-24.04', 'runs-on: ubuntu-24.04\n    steps-typo: []').replace('${{ matrix.version }}', '${{ matrix.versoin }}'));
      const bad = spawnSync(actionlint, ['-no-color', broken], { encoding: 'utf8' });
      assert.notEqual(bad.status, 0, 'a broken workflow is rejected');
      assert.match(bad.stdout, /versoin|steps-typo/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the integration suite against SQL Server 2019, 2022 and 2025 containers with DURABILITY_LENS_TEST_SERVER', () => {
    for (const tag of ['2019-latest', '2022-latest', '2025-latest']) assert.ok(text.includes(`mcr.microsoft.com/mssql/server:${tag}`), tag);
    assert.match(text, /DURABILITY_LENS_TEST_SERVER: Server=tcp:localhost,1433;Database=lab;User Id=lens_monitor;/);
    // The record and compare --command suites' separate program needs python-tds there too.
    assert.match(text, /pip install python-tds/);
    assert.match(text, /npx mocha 'test\/integration\/\*\*\/\*\.test\.ts'/);
  });

  it('creates the least-privileged login of the README with sqlcmd (no sysadmin, no VIEW ANY DEFINITION; the statements are compared in permissions.test.ts)', () => {
    assert.match(text, /sqlcmd -S localhost,1433 -U sa/);
    assert.match(text, /CREATE LOGIN \[lens_monitor\]/);
    assert.match(text, /GRANT \$\(SERVER_STATE\) TO \[lens_monitor\];/);
    assert.match(text, /server_state: VIEW SERVER STATE\n/);
    assert.match(text, /server_state: VIEW SERVER PERFORMANCE STATE\n/);
    assert.doesNotMatch(text, /VIEW ANY DEFINITION|sysadmin|db_owner|CHECK_POLICY = OFF/);
  });

  it('uploads the doctor --json report of each server as an artifact', () => {
    assert.match(text, /doctor[\s\S]*--json --out "doctor-sql\$\{\{ matrix\.version \}\}\.json"/);
    assert.match(text, /uses: actions\/upload-artifact@v4[\s\S]*path: doctor-sql\$\{\{ matrix\.version \}\}\.json/);
  });

  it('.ci/run installs actionlint with go install', () => {
    const run = readFileSync(join(root, '.ci/run'), 'utf8');
    assert.match(run, /"\$GO_BIN" install github\.com\/rhysd\/actionlint\/cmd\/actionlint@v\d+\.\d+\.\d+/);
  });
});

describe('ci: the integration suite reads DURABILITY_LENS_TEST_SERVER', () => {
  const saved = process.env[REAL_SERVER_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[REAL_SERVER_ENV];
    else process.env[REAL_SERVER_ENV] = saved;
  });

  describe('with the variable set', () => {
    // Set before useTestServer()'s own before hook runs (hooks run in the order they are registered).
    before(() => {
      process.env[REAL_SERVER_ENV] = 'Server=tcp:sql.example,14330;Database=lab;User Id=lens_monitor;Password=pw;Encrypt=true;TrustServerCertificate=true';
    });
    const target = useTestServer();

    it('targets the real server named by the variable (nothing is started, nothing connected)', () => {
      assert.equal(realServerConnectionString(), process.env[REAL_SERVER_ENV]);
      assert.equal(target.kind, 'given');
      assert.equal(target.profile.server, 'sql.example');
      assert.equal(target.profile.port, 14330);
      assert.equal(target.profile.database, 'lab');
      assert.equal(target.secret, 'pw');
      assert.equal(target.standin, null);
      assert.equal(target.standinServer, null);
    });
  });

  it('an empty variable means the stand-in', () => {
    process.env[REAL_SERVER_ENV] = '  ';
    assert.equal(realServerConnectionString(), undefined);
  });

  it('the CLI bundle entry the workflow runs exists', () => {
    assert.ok(existsSync(join(root, 'src/cli/main.ts')));
    assert.doesNotThrow(() => execFileSync('git', ['-C', root, 'ls-files', '--error-unmatch', 'src/cli/main.ts'], { stdio: 'ignore' }));
  });
});
