// Default wiring to the db layer: a ConnectionSource over connect(profile, secret) and a WorkloadExecutor over
// runWorkload (tedious). Kept apart so the orchestration itself runs against fakes in unit tests.
import { connect, runWorkload, TediousSession } from '../db';
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
    open: (role: ConnectionRole, signal?: AbortSignal) => connect(profile, secret, { role, ...(signal ? { signal } : {}) }),
  };
}

/** Runs batches with the db layer's streaming runner; it needs the tedious-backed session. */
export const tediousExecutor: WorkloadExecutor = {
  run(session: SqlSession, batch, options) {
    if (!(session instanceof TediousSession)) {
      throw new TypeError('The workload session must come from src/db connect() (a TediousSession) to run batches.');
    }
    return runWorkload(session, batch, options);
  },
};
