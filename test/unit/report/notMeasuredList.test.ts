// The Markdown "## Not measured" list: two measurements refused for the same reason and GRANT (the log-flush trace and
// the statement trace, both needing ALTER ANY EVENT SESSION) are one line, not the same line twice.
import { strict as assert } from 'node:assert';
import { buildComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { makeRun } from './runFixture';

describe('report: the Not measured list', () => {
  it('lists a reason and GRANT shared by two measurements once; different reasons each once', () => {
    const reason = 'No log-flush events (Extended Events session): the login may not create event sessions.';
    const grant = 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [low];';
    const run = makeRun({ mode: null });
    const missing = [
      { measurement: 'extendedEvents', reason, grant },
      { measurement: 'statementAttribution', reason, grant },
      { measurement: 'fileStats', reason: 'No per-file IO.', grant: null },
    ];
    const md = toMarkdown(buildComparisonModel([{ ...run, missing }]));
    const list = md.slice(md.indexOf('## Not measured'));
    assert.equal(list.split('\n').filter((l) => l.startsWith('- No log-flush events')).length, 1, list);
    assert.equal(list.split('\n').filter((l) => l.startsWith('- No per-file IO.')).length, 1, list);
  });
});
