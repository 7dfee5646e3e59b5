// Default wiring to the db layer: a ConnectionSource over connect(profile, secret) and a WorkloadExecutor over
// runWorkload (tedious). Kept apart so the orchestration itself runs against fakes in unit tests.
import { loadDriver, loadedDriver } from '../db/loadDriver';
import type { ConnectionProfile, ConnectionRole, SqlSession } from '../db/types';
import type { ConnectionSource, WorkloadExecutor } from './types';

export function describeServer(profile: Pick<ConnectionProfile, 'server' | 'port' | 'instanceName'>): string {
  if (profile.instanceName) return `${profile.server}\\${profile.instanceName}`;
  return `${profile.server},${profile.port ?? 1433}`;
}

/** Opens sessions for `profile`; the secret stays in this closure and is never part of any result. */
export function profileConnectionSource(profile: ConnectionProfile, secret: string | undefined): ConnectionSource {
  return {
    serverLabel: describeServer(profile),
    open: async (role: ConnectionRole, signal?: AbortSignal) => (await loadDriver()).connect(profile, secret, { role, signal }),
  };
}

/** Runs batches with the db layer's streaming runner; it needs the tedious-backed session. */
export const tediousExecutor: WorkloadExecutor = {
  run(session: SqlSession, batch, options) {
    // A tedious session exists only once connect() loaded the driver, so a driver not loaded means a foreign session.
    const driver = loadedDriver();
    if (!driver || !(session instanceof driver.TediousSession)) {
      throw new TypeError('The workload session must come from src/db connect() (a TediousSession) to run batches.');
    }
    return driver.runWorkload(session, batch, options);
  },
};
