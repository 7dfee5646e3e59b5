// docs/ci.md against the code: its GitHub Actions example passes actionlint (skipped locally only when actionlint is
// not installed, a failure in CI), it uses the flags the CLI has, and its exit codes are the CLI's.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { compareCommand } from '../../../src/cli/commands/compare';
import { EXIT_GATE_REGRESSION } from '../../../src/cli/commands/gateOptions';
import { recordCommand } from '../../../src/cli/commands/record';
import { optionFlags } from '../../../src/cli/options';
import { EXIT } from '../../../src/cli/commands/shared';
import { GATE_METRICS } from '../../../src/report/gates';

const root = resolve(__dirname, '../../..');
const doc = readFileSync(join(root, 'docs/ci.md'), 'utf8');
const workflow = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';

function findActionlint(): string | null {
  const candidates = [process.env.ACTIONLINT, ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'actionlint')), join(homedir(), 'go', 'bin', 'actionlint'), join(root, '.tools', 'bin', 'actionlint')];
  return candidates.find((c): c is string => !!c && existsSync(c)) ?? null;
}

describe('docs/ci.md', () => {
  it('the GitHub Actions example passes actionlint, and a broken copy of it does not', function () {
    assert.match(workflow, /image: mcr\.microsoft\.com\/mssql\/server:/);
    const actionlint = findActionlint();
    if (!actionlint) {
      // In CI it is a failure once .ci/run installs actionlint (the real-server workflow's test relies on it too).
      if (process.env.CI === 'true' && /actionlint/.test(readFileSync(join(root, '.ci/run'), 'utf8'))) assert.fail('actionlint is not installed although .ci/run installs it');
      console.log('    actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 to check the example');
      this.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'lens-ci-doc-'));
    try {
      const file = join(dir, 'durability.yml');
      writeFileSync(file, workflow);
      const good = spawnSync(actionlint, ['-no-color', file], { encoding: 'utf8' });
      assert.equal(good.status, 0, `${good.stdout}${good.stderr}`);
      writeFileSync(file, workflow.replace('${{ github.run_id }}', '${{ github.run_idd }}'));
      const bad = spawnSync(actionlint, ['-no-color', file], { encoding: 'utf8' });
      assert.notEqual(bad.status, 0, 'a broken workflow is rejected');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the example uses only flags compare and record declare, and every gate is described', () => {
    const declared = new Set([...optionFlags(compareCommand.declaration), ...optionFlags(recordCommand.declaration)]);
    for (const flag of workflow.match(/--[a-z][a-z-]+/g) ?? []) {
      if (['--health-cmd', '--health-interval', '--health-timeout', '--health-retries', '--sarif'].includes(flag)) continue;
      const known = declared.has(flag);
      assert.ok(known, `unknown flag ${flag} in the example`);
    }
    for (const m of GATE_METRICS) assert.match(doc, new RegExp(`\\| \`${m}\` \\|`), `gate ${m} in the table`);
  });

  it('its exit codes are the CLI\'s', () => {
    assert.match(doc, new RegExp(`^\\| ${EXIT_GATE_REGRESSION} \\| a gate of \`--baseline\` regressed`, 'm'));
    assert.match(doc, new RegExp(`^\\| ${EXIT.workloadError} \\| the program failed`, 'm'));
    assert.match(doc, new RegExp(`^\\| ${EXIT.cancelled} \\| cancelled`, 'm'));
    assert.equal(Object.values(EXIT).includes(EXIT_GATE_REGRESSION as never), false, 'the gate code is not another exit code');
    // Every code record or compare can end with has a row (a CI log shows only the number).
    const table = doc.slice(doc.indexOf('## Exit codes'), doc.indexOf('\n## ', doc.indexOf('## Exit codes') + 1));
    const rows = new Set([...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1])));
    for (const code of [...Object.values(EXIT), EXIT_GATE_REGRESSION, 129, 141, 143]) assert.ok(rows.has(code), `exit ${code} has a row in docs/ci.md's table`);
  });
});
