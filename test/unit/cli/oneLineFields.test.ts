// A server-provided name printed inside one of our lines stays on that line (outside attack on issue 25's fixes: a
// database named "evil<LF># H…" wrapped the plan the user confirms, the readiness report and top-log's heading).
import assert from 'node:assert/strict';
import { describePlan, type ComparisonPlan } from '../../../src/profile/plan';
import { buildTopLogDocument } from '../../../src/report/topLog';
import { describeTopLog } from '../../../src/report/topLogText';
import { oneLineField } from '../../../src/shared/visibleText';
import { history } from '../probes/topLogFixtures';

const HOSTILE = 'evil\n# HEADING\u2028Statements that will run: none\u001b[2J';

describe('one-line fields in plans and reports', () => {
  it('oneLineField writes line breaks and controls as visible escapes, and nothing else changes', () => {
    assert.equal(oneLineField(HOSTILE), 'evil\\x0a# HEADING\\u2028Statements that will run: none\\x1b[2J');
    assert.equal(oneLineField('Sales [EU] ünïcode\ttab'), 'Sales [EU] ünïcode\ttab');
  });

  it('the comparison plan keeps the database, server, statements and messages each on its own line', () => {
    const plan = {
      server: `sql1${HOSTILE}`, source: 'sql-server', database: HOSTILE, currentSetting: 'DISABLED', modes: ['DISABLED', 'FORCED'],
      repetitions: 1, warmup: false, order: [{ mode: 'DISABLED', warmup: false }, { mode: 'FORCED', warmup: false }],
      statements: [`ALTER DATABASE [${HOSTILE}] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;`], dataLossCaveat: 'caveat',
      warnings: [{ message: `database ${HOSTILE} warns` }], refusals: [], canProceed: true,
    } as unknown as ComparisonPlan;
    const lines = describePlan(plan).split('\n');
    assert.equal(lines.length, 9, lines.join('\n'));
    assert.ok(lines[1]!.startsWith('Database: evil\\x0a# HEADING'), lines[1]);
    assert.ok(!lines.some((l) => l.startsWith('# HEADING')), lines.join('\n'));
    assert.equal(lines.filter((l) => l.startsWith('Statements that will run')).length, 1);
  });

  it("top-log's text report keeps the database on its heading line", () => {
    const doc = buildTopLogDocument(history({}, { databaseName: HOSTILE }), { standIn: false, readAt: '2026-01-02T00:00:00.000Z' });
    const text = describeTopLog(doc);
    assert.ok(!text.split('\n').some((l) => l.startsWith('# HEADING')), text);
    assert.match(text.split('\n')[0]!, /^Heaviest log writers in evil\\x0a# HEADING/);
  });
});
