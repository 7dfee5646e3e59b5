// Extended Events maps (sys.dm_xe_map_values: name, object_package_guid, map_key int, map_value; Learn,
// "sys.dm_xe_map_values"): the wait_types map behind wait_completed / wait_info's wait_type field and event_opcode.
// The keys are this model's: real keys differ between versions (reference: "map keys are version-specific"), so the
// model shifts them per major version to catch a client that hard-codes one. Which key WRITELOG has on any real build
// is NOT CONFIRMED.
import { KNOWN_WAITS } from './catalog-dmv';

export type XeMapName = 'wait_types' | 'event_opcode';

/** Map keys of the wait types for one major version (15 = 2019, 16 = 2022, 17 = 2025). */
export function waitTypeKeys(major: number): Map<string, number> {
  const base = major === 15 ? 120 : major === 17 ? 260 : 180;
  return new Map(KNOWN_WAITS.map((w, i) => [w, base + i * 3]));
}

/** event_opcode labels ("Begin"/"End") as public wait_info output shows them; NOT CONFIRMED by a Learn page. */
export const EVENT_OPCODES: ReadonlyArray<[number, string]> = [[0, 'Begin'], [1, 'End']];

/** Every (map, key, value) row for sys.dm_xe_map_values; the package of both maps is sqlos. */
export function mapValueRows(major: number): Array<{ name: XeMapName; key: number; value: string }> {
  return [
    ...[...waitTypeKeys(major)].map(([value, key]) => ({ name: 'wait_types' as const, key, value })),
    ...EVENT_OPCODES.map(([key, value]) => ({ name: 'event_opcode' as const, key, value })),
  ];
}
