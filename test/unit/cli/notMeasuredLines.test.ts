// The terminal's "Not measured" lines after profile/record: one per distinct reason, one "Not measured:" prefix each.
import { strict as assert } from 'node:assert';
import { notMeasuredLines } from '../../../src/cli/commands/shared';

describe('cli notMeasuredLines', () => {
  it('does not repeat a "Not measured:" prefix the reason already carries', () => {
    const text = notMeasuredLines([
      { measurement: 'sessionWaits', reason: "Not measured: the workload session's own waits: no row for session 53.", grant: 'USE [master]; GRANT VIEW SERVER PERFORMANCE STATE TO [low];' },
    ]);
    assert.equal(text, "Not measured: the workload session's own waits: no row for session 53.\n  To enable: USE [master]; GRANT VIEW SERVER PERFORMANCE STATE TO [low];\n");
  });

  it('prints a reason without the prefix once with it, and the same reason and GRANT only once', () => {
    const xe = { measurement: 'extendedEvents', reason: 'No log-flush events (Extended Events session): the login may not create event sessions.', grant: 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [low];' };
    const text = notMeasuredLines([xe, { ...xe }, { measurement: 'fileStats', reason: 'No per-file IO.', grant: null }]);
    assert.equal(text, [
      'Not measured: No log-flush events (Extended Events session): the login may not create event sessions.',
      '  To enable: USE [master]; GRANT ALTER ANY EVENT SESSION TO [low];',
      'Not measured: No per-file IO.',
      '',
    ].join('\n'));
  });

  it('keeps two reasons that differ only in their GRANT', () => {
    const text = notMeasuredLines([
      { measurement: 'a', reason: 'No X.', grant: 'GRANT A TO [u];' },
      { measurement: 'b', reason: 'No X.', grant: 'GRANT B TO [u];' },
    ]);
    assert.equal(text.split('\n').filter((l) => l.startsWith('Not measured:')).length, 2);
  });
});
