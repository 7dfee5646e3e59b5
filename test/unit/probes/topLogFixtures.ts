// Histories as readQueryStoreHistory returns them, for the unit tests of the outcomes, the document and its text.
import { ok } from '../../../src/probes/measurement';
import type { GrantContext } from '../../../src/probes/permissions';
import type { QueryStoreHistory, QueryStoreOptionsRow, QueryStoreQueryRow } from '../../../src/probes/queryStore';
import { planRanking, queryStoreCapabilities } from '../../../src/probes/queryStoreSql';

export function grantContext(over: Partial<GrantContext> = {}): GrantContext {
  return { majorVersion: 16, engineEdition: 3, loginName: 'app_reader', userName: 'app_reader', databaseName: 'Sales', ...over };
}

export function options(over: Partial<QueryStoreOptionsRow> = {}): QueryStoreOptionsRow {
  return {
    desiredState: 'READ_WRITE', actualState: 'READ_WRITE', readonlyReason: 0, currentStorageSizeMb: 12, maxStorageSizeMb: 1000, intervalLengthMinutes: 60,
    flushIntervalSeconds: 900, staleQueryThresholdDays: 30, queryCaptureMode: 'AUTO', waitStatsCaptureMode: 'ON', ...over,
  };
}

/** A history as the probe returns it for a readable Query Store (rows and totals to fill in). */
export function history(over: Partial<QueryStoreHistory> = {}, ctxOver: Partial<GrantContext> = {}): QueryStoreHistory {
  const ctx = grantContext(ctxOver);
  const capabilities = queryStoreCapabilities(ctx);
  const o = over.options ?? ok(options());
  const capture = o.status === 'ok' && o.value.waitStatsCaptureMode === 'ON';
  return {
    ctx, capabilities, windowHours: 24, top: 25, access: ok(true), options: o,
    coverage: ok({ intervals: 24, firstStart: '2026-01-01T00:00:00.000Z', lastEnd: '2026-01-02T00:00:00.000Z', serverNow: '2026-01-02T00:00:00.000Z' }),
    ranking: planRanking('log', capabilities, capture), rows: ok([]), totals: ok({ executions: 0, logBytes: 0, queries: 0 }), logBytes: ok(true), waits: ok(true), ...over,
  };
}


/** A query row with plausible figures (override what the test is about). */
export function queryRow(over: Partial<QueryStoreQueryRow> = {}): QueryStoreQueryRow {
  return {
    queryId: '7', objectId: 1600000001, schemaName: 'dbo', objectName: 'load_rows', queryHash: '0x0102030405060708', text: 'INSERT INTO dbo.t (v) VALUES (@i)',
    fullTextLength: null, executions: 1000, unfinishedExecutions: 0, logBytes: 323000, durationUs: 205000, firstExecution: '2026-01-01T00:10:00.000Z',
    lastExecution: '2026-01-01T23:50:00.000Z', logWaitMs: 200, totalWaitMs: 250, commitsAloneScore: 975, ...over,
  };
}
