// One e2e run (or demo build) at a time per checkout: several engineers run `npm test` in the same folder, and
// two runs would wipe each other's .e2e/run/ state and durability-lens.vsix. A lock directory (mkdir is atomic)
// names its holder's pid; a dead holder's lock is taken over.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheRoot } from './paths';

const lockDir = path.join(cacheRoot, 'run.lock');
const ownerFile = path.join(lockDir, 'pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function holder(): number | null {
  try {
    const pid = Number(fs.readFileSync(ownerFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Waits (polling, bounded by `timeoutMs`) until this process holds the lock; returns the release function. */
export async function acquireE2eLock(what: string, timeoutMs = 20 * 60_000): Promise<() => void> {
  fs.mkdirSync(cacheRoot, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(ownerFile, String(process.pid));
      const release = () => {
        if (holder() === process.pid) fs.rmSync(lockDir, { recursive: true, force: true });
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = holder();
    // No pid yet: the holder is between mkdir and writeFile; a dead pid: a killed run left the lock behind.
    if ((pid !== null && !alive(pid)) || (pid === null && ageMs(lockDir) > 10_000)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) {
      console.log(`${what}: another e2e run or demo build (pid ${pid ?? '?'}) is using .e2e/ in this checkout; waiting for it`);
      announced = true;
    }
    if (Date.now() > deadline) throw new Error(`${what}: .e2e/ still locked by pid ${pid ?? '?'} after ${Math.round(timeoutMs / 1000)} s (${lockDir})`);
    await new Promise((r) => setTimeout(r, 1000)); // poll interval; the deadline above bounds the wait
  }
}
