// Extended Events views: session definitions, running sessions and targets (ring_buffer / event_file XML),
// the XE metadata DMVs (packages, objects, columns) and sys.fn_xe_file_target_read_file. Reference §4.
import { padNchar, register, requireServerState, type VRow } from './catalog';
import { consistencyFaults } from './consistencyFaults';
import type { BatchContext } from './eval';
import type { EventSession } from './xe';
import { counterTargetXml, eventFileXml, histogramTargetXml, packageOf, ringBufferXml, XE_EVENTS, XE_MAP_TYPES, XE_TARGETS } from './xe';
import { mapValueRows } from './xe-maps';

export const PACKAGES: Record<string, string> = {
  package0: '60AA9FBF-673B-4553-B7ED-71DCA7F5E972',
  sqlserver: '655FD93F-3364-40D5-B2BA-330F7FFB6491',
  sqlos: 'BD97CC63-3F38-4922-AA93-607BD12E78B2',
};

/** Events this simulated version offers: all of XE_EVENTS minus StandinOptions.missingXeEvents. */
export function availableEvents(b: BatchContext): string[] {
  return Object.keys(XE_EVENTS).filter((e) => !b.server.missingXeEvents.has(e));
}

/**
 * Actions accepted in ADD EVENT ... ACTION (...). Only sqlserver.query_hash gets a value attached (xe.ts actionValues,
 * MODEL.md "query_hash action"); the others are recorded but carry no value.
 */
export const XE_ACTIONS: Array<[string, string]> = [['package0', 'event_sequence'], ['sqlserver', 'database_id'], ['sqlserver', 'session_id'], ['sqlserver', 'sql_text'], ['sqlserver', 'client_app_name'], ['sqlserver', 'query_hash']];
/** type_name of an action in sys.dm_xe_objects: query_hash as uint64 (NOT CONFIRMED; public scripts read it as a number). */
const ACTION_TYPES: Record<string, string> = { query_hash: 'uint64' };

const defCols = 'event_session_id int, name sysname, event_retention_mode nchar(1), event_retention_mode_desc nvarchar(60), max_dispatch_latency int, ' +
  'max_memory int, max_event_size int, memory_partition_mode nchar(1), memory_partition_mode_desc nvarchar(60), track_causality bit, startup_state bit';
const runCols = 'address nvarchar(18), name nvarchar(256), pending_buffers int, total_regular_buffers int, regular_buffer_size bigint, total_large_buffers int, ' +
  'large_buffer_size bigint, total_buffer_size bigint, buffer_policy_flags int, buffer_policy_desc nvarchar(256), flags int, flag_desc nvarchar(256), ' +
  'dropped_event_count int, dropped_buffer_count int, blocked_event_fire_time int, create_time datetime, largest_event_dropped_size int, ' +
  'session_source nvarchar(256), buffer_processed_count bigint, buffer_full_count bigint, total_bytes_generated bigint, total_target_memory bigint';
const targetCols = 'event_session_address nvarchar(18), target_name nvarchar(60), target_package_guid uniqueidentifier, execution_count bigint, ' +
  'execution_duration_ms bigint, target_data nvarchar(max), bytes_written bigint';

function sizeKb(v: string | undefined, dflt: number): number {
  if (!v) return dflt;
  const [n, unit] = v.split(' ');
  return Number(n) * (unit === 'MB' ? 1024 : 1);
}

function defRow(s: EventSession): VRow {
  const retention = s.options['EVENT_RETENTION_MODE'] ?? 'ALLOW_SINGLE_EVENT_LOSS';
  const lat = s.options['MAX_DISPATCH_LATENCY'];
  const partition = s.options['MEMORY_PARTITION_MODE'] ?? 'NONE';
  return {
    event_session_id: s.id, name: s.name, event_retention_mode: retention === 'NO_EVENT_LOSS' ? 'N' : retention === 'ALLOW_MULTIPLE_EVENT_LOSS' ? 'M' : 'S',
    event_retention_mode_desc: retention, max_dispatch_latency: lat === undefined ? 30000 : lat === 'INFINITE' || lat.startsWith('0') ? -1 : Number(lat.split(' ')[0]) * 1000,
    max_memory: sizeKb(s.options['MAX_MEMORY'], 4096), max_event_size: sizeKb(s.options['MAX_EVENT_SIZE'], 0),
    memory_partition_mode: partition === 'PER_NODE' ? 'G' : partition === 'PER_CPU' ? 'C' : 'N', memory_partition_mode_desc: partition,
    track_causality: s.options['TRACK_CAUSALITY'] === 'ON', startup_state: s.options['STARTUP_STATE'] === 'ON',
  };
}

function runRow(s: EventSession): VRow {
  return {
    address: s.address, name: s.name, pending_buffers: 0, total_regular_buffers: 3, regular_buffer_size: 1398101n, total_large_buffers: 0,
    large_buffer_size: 0n, total_buffer_size: 4194304n, buffer_policy_flags: 0, buffer_policy_desc: '', flags: 0, flag_desc: '', dropped_event_count: 0,
    dropped_buffer_count: 0, blocked_event_fire_time: 0, create_time: s.startTime, largest_event_dropped_size: 0, session_source: s.scope === 'SERVER' ? 'server' : 'database',
    buffer_processed_count: 0n, buffer_full_count: 0n, total_bytes_generated: BigInt(s.bytesGenerated), total_target_memory: BigInt(s.ring?.bytes ?? 0),
  };
}

function targetRows(s: EventSession): VRow[] {
  return s.targets.map((t) => {
    const name = t.name.toLowerCase();
    const data =
      name === 'ring_buffer' && s.ring ? ringBufferXml(s.ring)
      : name === 'event_file' ? eventFileXml(s)
      : name === 'event_counter' && s.counter ? counterTargetXml(s)
      : name === 'histogram' && s.histogram ? histogramTargetXml(s.histogram)
      : null;
    return {
      event_session_address: s.address, target_name: name, target_package_guid: PACKAGES['package0']!, execution_count: BigInt(s.ring?.totalProcessed ?? s.file?.logged ?? 0),
      execution_duration_ms: 0n, target_data: data, bytes_written: BigInt(s.file ? s.file.logged * 512 : 0),
    };
  });
}

const serverSessions = (b: BatchContext) => [...b.server.eventSessions.values()].filter((s) => s.scope === 'SERVER');
const dbSessions = (b: BatchContext) => [...b.server.eventSessions.values()].filter((s) => s.scope === 'DATABASE' && s.databaseId === b.session.db.id);

/** Field descriptions; the client reads the duration unit from here. The units are the model's (MODEL.md NOT CONFIRMED). */
function columnDescription(event: string, field: string, unstatedUnits = false): string {
  if (field !== 'duration') return `${field} (stand-in)`;
  if (unstatedUnits) return 'The duration (stand-in model, unit not stated)'; // test switch (consistencyFaults.ts)
  if (event === 'log_flush_complete') return 'Duration of the flush in microseconds (stand-in model)';
  if (event === 'wait_info') return 'The duration of the wait in milliseconds (stand-in model)';
  if (event === 'wait_completed') return 'The duration of the wait in microseconds (stand-in model)';
  if (event.endsWith('statement_completed')) return 'The time (in microseconds) that the statement took (stand-in model)';
  return `${field} (stand-in)`;
}

export function registerXeTables(): void {
  register({
    name: 'sys.dm_xe_map_values', check: requireServerState,
    columns: 'name nvarchar(256), object_package_guid uniqueidentifier, map_key int, map_value nvarchar(3072)',
    rows: (b) => mapValueRows(b.server.options.major).map((r) => ({ name: r.name, object_package_guid: PACKAGES['sqlos']!, map_key: r.key, map_value: r.value })),
  });
  register({ name: 'sys.server_event_sessions', check: requireServerState, columns: defCols, rows: (b) => serverSessions(b).map(defRow) });
  register({ name: 'sys.database_event_sessions', columns: defCols, rows: (b) => dbSessions(b).map(defRow) });
  register({
    name: 'sys.server_event_session_events', check: requireServerState,
    columns: 'event_session_id int, event_id int, name sysname, package sysname, module sysname, predicate nvarchar(3000)',
    rows: (b) => serverSessions(b).flatMap((s) => s.events.map((e, i) => ({ event_session_id: s.id, event_id: i + 1, name: e.name, package: e.pkg || 'sqlserver', module: 'standin', predicate: e.predicate ?? null }))),
  });
  register({
    name: 'sys.server_event_session_targets', check: requireServerState,
    columns: 'event_session_id int, target_id int, name sysname, package sysname, module sysname',
    rows: (b) => serverSessions(b).flatMap((s) => s.targets.map((t, i) => ({ event_session_id: s.id, target_id: i + 1, name: t.name, package: t.pkg || 'package0', module: 'standin' }))),
  });
  register({ name: 'sys.dm_xe_sessions', check: requireServerState, columns: runCols, rows: (b) => serverSessions(b).filter((s) => s.running).map(runRow) });
  register({ name: 'sys.dm_xe_database_sessions', columns: runCols, rows: (b) => dbSessions(b).filter((s) => s.running).map(runRow) });
  register({ name: 'sys.dm_xe_session_targets', check: requireServerState, columns: targetCols, rows: (b) => serverSessions(b).filter((s) => s.running).flatMap(targetRows) });
  register({ name: 'sys.dm_xe_database_session_targets', columns: targetCols, rows: (b) => dbSessions(b).filter((s) => s.running).flatMap(targetRows) });
  const evCols = 'event_session_address nvarchar(18), event_name nvarchar(60), event_package_guid uniqueidentifier, event_predicate nvarchar(3072)';
  const evRows = (list: EventSession[]) => list.filter((s) => s.running).flatMap((s) => s.events.map((e) => ({ event_session_address: s.address, event_name: e.name, event_package_guid: PACKAGES['sqlserver']!, event_predicate: e.predicate ?? null })));
  register({ name: 'sys.dm_xe_session_events', check: requireServerState, columns: evCols, rows: (b) => evRows(serverSessions(b)) });
  register({ name: 'sys.dm_xe_database_session_events', columns: evCols, rows: (b) => evRows(dbSessions(b)) });
  register({
    name: 'sys.dm_xe_packages', check: requireServerState,
    columns: 'name nvarchar(256), guid uniqueidentifier, description nvarchar(3072), capabilities int, capabilities_desc nvarchar(256), module_guid uniqueidentifier',
    rows: () => Object.entries(PACKAGES).map(([name, guid]) => ({ name, guid, description: `${name} package (stand-in)`, capabilities: 0, capabilities_desc: null, module_guid: guid })),
  });
  register({
    name: 'sys.dm_xe_objects', check: requireServerState,
    columns: 'name nvarchar(256), object_type nvarchar(60), package_guid uniqueidentifier, description nvarchar(3072), capabilities int, capabilities_desc nvarchar(256), ' +
      'type_name nvarchar(256), type_package_guid uniqueidentifier, type_size int',
    rows: (b) => [
      ...availableEvents(b).map((name) => ({ name, object_type: 'event', package_guid: PACKAGES[packageOf(name)]!, description: `${name} (stand-in)`, capabilities: 0, capabilities_desc: null, type_name: null, type_package_guid: null, type_size: null })),
      ...XE_ACTIONS.map(([pkg, name]) => ({ name, object_type: 'action', package_guid: PACKAGES[pkg]!, description: `${name} action (stand-in)`, capabilities: 0, capabilities_desc: null, type_name: ACTION_TYPES[name] ?? null, type_package_guid: ACTION_TYPES[name] ? PACKAGES['package0']! : null, type_size: ACTION_TYPES[name] ? 8 : null })),
      ...XE_TARGETS.map((name) => ({ name, object_type: 'target', package_guid: PACKAGES['package0']!, description: `${name} target (stand-in)`, capabilities: 0, capabilities_desc: null, type_name: null, type_package_guid: null, type_size: null })),
    ],
  });
  register({
    name: 'sys.dm_xe_object_columns', check: requireServerState,
    columns: 'name nvarchar(256), column_id int, object_name nvarchar(256), object_package_guid uniqueidentifier, type_name nvarchar(256), ' +
      'type_package_guid uniqueidentifier, column_type nvarchar(60), column_value nvarchar(3072), capabilities int, capabilities_desc nvarchar(256), description nvarchar(3072)',
    rows: (b) => {
      const out: VRow[] = [];
      for (const ev of availableEvents(b)) {
        XE_EVENTS[ev]!.forEach(([name, type], i) => out.push({
          name, column_id: i + 6, object_name: ev, object_package_guid: PACKAGES[packageOf(ev)]!, type_name: type,
          type_package_guid: PACKAGES[XE_MAP_TYPES.has(type) ? 'sqlos' : 'package0']!,
          column_type: 'data', column_value: null, capabilities: 0, capabilities_desc: null,
          description: columnDescription(ev, name, consistencyFaults(b.server).unstatedDurationUnits),
        }));
      }
      const custom: Array<[string, string, string, string | null]> = [
        ['ring_buffer', 'max_memory', 'uint32', null], ['ring_buffer', 'max_events_limit', 'uint32', '1000'], ['ring_buffer', 'occurrence_number', 'uint32', '0'], ['ring_buffer', 'max_event_size', 'uint32', '0'],
        ['event_file', 'filename', 'unicode_string_ptr', null], ['event_file', 'max_file_size', 'uint64', '1024'], ['event_file', 'max_rollover_files', 'uint32', '5'],
        // histogram options and the slots default (256) from the targets page; event_counter has no parameters.
        ['histogram', 'filtering_event_name', 'unicode_string_ptr', null], ['histogram', 'source', 'unicode_string_ptr', null],
        ['histogram', 'source_type', 'int32', '1'], ['histogram', 'slots', 'uint32', '256'],
      ];
      custom.forEach(([obj, name, type, dflt], i) => out.push({
        name, column_id: i, object_name: obj, object_package_guid: PACKAGES['package0']!, type_name: type, type_package_guid: PACKAGES['package0']!,
        column_type: 'customizable', column_value: dflt, capabilities: 0, capabilities_desc: null, description: `${name} (stand-in default)`,
      }));
      return out;
    },
  });
  register({
    name: 'sys.fn_xe_file_target_read_file', argCount: 4, check: requireServerState,
    columns: 'module_guid uniqueidentifier, package_guid uniqueidentifier, object_name nvarchar(256), event_data nvarchar(max), file_name nvarchar(260), file_offset bigint, timestamp_utc datetime2(7)',
    *rows(b, [path, , initialFile, initialOffset]) {
      const pattern = String(path ?? '');
      const re = new RegExp('^' + pattern.replace(/[.+^${}()|\\[\]]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i');
      const names = [...b.server.xeFiles.keys()].filter((n) => re.test(n) || re.test(n.split(/[\\/]/).pop()!)).sort();
      let skipping = initialFile !== null && initialFile !== undefined;
      for (const name of names) {
        for (const rec of b.server.xeFiles.get(name)!) {
          if (skipping) {
            if (name === String(initialFile) && rec.offset > Number(initialOffset ?? 0)) skipping = false;
            else continue;
          }
          yield { module_guid: PACKAGES['sqlserver']!, package_guid: PACKAGES['sqlserver']!, object_name: rec.objectName, event_data: rec.xml, file_name: name, file_offset: BigInt(rec.offset), timestamp_utc: rec.timestamp };
        }
      }
    },
  });
}

export { padNchar };
