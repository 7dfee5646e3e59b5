// Runs a piece of a test in a chosen time zone, so a test can prove its subject does not depend on the zone of the
// machine that runs it (CI's, a developer's in Chatham or St. John's). Node reads process.env.TZ again each time it is
// assigned, so the zone changes inside this process and is put back afterwards, whatever the callback does.

/** Zones with offsets that are not whole hours, far from UTC on both sides, and with daylight saving time. */
export const AWKWARD_ZONES = ['Pacific/Chatham', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Kiritimati'] as const;

/** Runs `work` with the process's time zone set to `zone` (IANA name), then restores the zone it had. */
export async function inTimeZone<T>(zone: string, work: () => T | Promise<T>): Promise<T> {
  const had = Object.prototype.hasOwnProperty.call(process.env, 'TZ');
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await work();
  } finally {
    if (had) process.env.TZ = before;
    else delete process.env.TZ;
  }
}
