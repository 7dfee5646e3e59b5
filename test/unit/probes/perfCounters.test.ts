import assert from 'node:assert/strict';
import { CounterType, diffCounters, LOG_COUNTERS_SQL, mapCounterRow } from '../../../src/probes/perfCounters';

function row(counterName: string, value: string, type: number) {
  // nchar(128) columns arrive padded when the SQL does not RTRIM them.
  return mapCounterRow({ object_name: 'MSSQL$SQL2022:Databases'.padEnd(128), counter_name: counterName.padEnd(128), instance_name: 'Sales'.padEnd(128), cntr_value: value, cntr_type: type });
}

describe('probes/perfCounters: interpretation by cntr_type', () => {
  it('matches any instance prefix and trims the nchar columns (LIKE keeps trailing blanks on Unicode data)', () => {
    // An untrimmed nchar(128) object_name never matches LIKE N'%:Databases' on SQL Server: trim before LIKE.
    assert.match(LOG_COUNTERS_SQL, /WHERE RTRIM\(object_name\) LIKE N'%:Databases'/);
    assert.doesNotMatch(LOG_COUNTERS_SQL, /[^(]object_name LIKE/);
    assert.match(LOG_COUNTERS_SQL, /RTRIM\(instance_name\) IN \(@database_name, @physical_database_name\)/);
    const r = row('Log Flushes/sec', '10', CounterType.bulkCount);
    assert.equal(r.counterName, 'Log Flushes/sec');
    assert.equal(r.instanceName, 'Sales');
  });

  it('turns cumulative (bulk count / per second) counters into deltas and rates', () => {
    const d = diffCounters([row('Log Flushes/sec', '1000', CounterType.bulkCount)], [row('Log Flushes/sec', '101000', CounterType.bulkCount)], 25);
    assert.deepEqual(d, [{ counterName: 'Log Flushes/sec', kind: 'cumulative', type: CounterType.bulkCount, delta: 100000, perSecond: 4000 }]);
    const p = diffCounters([row('Transactions/sec', '5', CounterType.perSecond)], [row('Transactions/sec', '15', CounterType.perSecond)], 0);
    assert.equal(p[0]!.kind === 'cumulative' && p[0]!.perSecond, null, 'no elapsed time → no rate');
  });

  it('reports raw (65792) counters as before/after values, not deltas', () => {
    const d = diffCounters([row('Percent Log Used', '12', CounterType.rawValue)], [row('Percent Log Used', '40', CounterType.rawValue)], 10);
    assert.deepEqual(d, [{ counterName: 'Percent Log Used', kind: 'point', type: CounterType.rawValue, before: 12, after: 40 }]);
  });

  it('divides average-bulk counters by the delta of their base, and gives null when the base did not move', () => {
    const before = [row('Avg Wait Time (ms)', '100', CounterType.averageBulk), row('Avg Wait Time Base', '10', CounterType.base)];
    const after = [row('Avg Wait Time (ms)', '160', CounterType.averageBulk), row('Avg Wait Time Base', '13', CounterType.base)];
    const d = diffCounters(before, after, 1);
    assert.equal(d.length, 1, 'the base itself is not reported');
    assert.equal(d[0]!.kind === 'ratio' && d[0]!.value, 20);
    const still = diffCounters(before, [row('Avg Wait Time (ms)', '100', CounterType.averageBulk), row('Avg Wait Time Base', '10', CounterType.base)], 1);
    assert.equal(still[0]!.kind === 'ratio' && still[0]!.value, null);
  });

  it('keeps unknown counter types as raw before/after text', () => {
    const d = diffCounters([row('Log Flush Write Time (ms)', '7', 42)], [row('Log Flush Write Time (ms)', '9', 42)], 1);
    assert.deepEqual(d, [{ counterName: 'Log Flush Write Time (ms)', kind: 'unknown-type', type: 42, before: '7', after: '9' }]);
  });
});
