import * as assert from 'node:assert/strict';
import { defaultRunSettings, readRunSettings, type RunSettingKey } from '../../../src/shared/runSettings';

const from = (values: Partial<Record<RunSettingKey, unknown>>) => readRunSettings((k) => values[k]);

describe('shared/runSettings', () => {
  it('defaults: 1000 ms sampling, ring buffer, 20 kept, DISABLED vs FORCED × 3 with warm-up', () => {
    const s = defaultRunSettings();
    assert.equal(s.samplingIntervalMs, 1000);
    assert.equal(s.connectTimeoutMs, 15000);
    assert.equal(s.requestTimeoutMs, 0);
    assert.deepEqual(s.xeTarget, { kind: 'ring_buffer' });
    assert.equal(s.xeEnabled, true);
    assert.equal(s.historySize, 20);
    assert.deepEqual(s.compareModes, ['DISABLED', 'FORCED']);
    assert.equal(s.compareRepetitions, 3);
    assert.equal(s.compareWarmup, true);
    assert.deepEqual(s.compareSessions, []);
  });

  it('takes valid values', () => {
    const s = from({
      'sampling.intervalMs': 250,
      'timeouts.requestMs': 30000,
      'waits.benign.exclude': [' sos_scheduler_yield ', 'SOS_SCHEDULER_YIELD', 7],
      'xe.enabled': false,
      'xe.target': 'event_file',
      'xe.eventFilePath': '/var/opt/mssql/log/dl',
      'history.size': 5,
      'compare.modes': ['FORCED', 'ALLOWED', 'DISABLED', 'FORCED'],
      'compare.repetitions': 5,
      'compare.warmup': false,
      'compare.sessions': [1, 4, 16, 4],
    });
    assert.equal(s.samplingIntervalMs, 250);
    assert.equal(s.requestTimeoutMs, 30000);
    assert.deepEqual(s.benignExclude, ['SOS_SCHEDULER_YIELD']);
    assert.equal(s.xeEnabled, false);
    assert.deepEqual(s.xeTarget, { kind: 'event_file', path: '/var/opt/mssql/log/dl' });
    assert.equal(s.historySize, 5);
    assert.deepEqual(s.compareModes, ['FORCED', 'ALLOWED', 'DISABLED']);
    assert.equal(s.compareRepetitions, 5);
    assert.equal(s.compareWarmup, false);
    assert.deepEqual(s.compareSessions, [1, 4, 16]);
  });

  it('keeps defaults for wrong types and out-of-range values; event_file without a path uses the ring buffer', () => {
    const s = from({ 'sampling.intervalMs': 5, 'history.size': '10', 'compare.modes': ['FORCED'], 'compare.repetitions': 0.5, 'xe.target': 'event_file', 'xe.eventFilePath': '  ', 'xe.enabled': 'no' });
    assert.equal(s.samplingIntervalMs, 1000);
    assert.equal(s.historySize, 20);
    assert.deepEqual(s.compareModes, ['DISABLED', 'FORCED']);
    assert.equal(s.compareRepetitions, 3);
    assert.deepEqual(s.xeTarget, { kind: 'ring_buffer' });
    assert.equal(s.xeEnabled, true);
    assert.deepEqual(from({ 'compare.sessions': [0, 2.5, '8', 65, 8] }).compareSessions, [8], 'only whole numbers 1..64');
    assert.deepEqual(from({ 'compare.sessions': 'x' }).compareSessions, []);
  });
});
