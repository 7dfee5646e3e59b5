// Turns a Durability Lens connection profile (+ its secret) into a tedious ConnectionConfiguration.
// Pure, so the mapping of every authentication type is unit-tested without a server.
import type { ConnectionAuthentication, ConnectionConfiguration } from 'tedious';
import type { ConnectionProfile, ConnectionRole } from './types';

export const DEFAULT_APP_NAME = 'Durability Lens';

/** "Durability Lens (workload)" / "Durability Lens (monitor)": lets a DBA tell our two sessions apart. */
export function applicationName(profile: Pick<ConnectionProfile, 'appName'>, role: ConnectionRole): string {
  return `${profile.appName?.trim() || DEFAULT_APP_NAME} (${role})`;
}

export function toTediousAuthentication(profile: ConnectionProfile, secret: string | undefined): ConnectionAuthentication {
  const auth = profile.authentication;
  switch (auth.type) {
    case 'sql':
      return { type: 'default', options: { userName: auth.user, password: secret ?? '' } };
    case 'ntlm':
      return { type: 'ntlm', options: { userName: auth.user, password: secret ?? '', domain: auth.domain } };
    case 'entra-password':
      // tedious types tenantId as required; an empty string lets the identity library use the default tenant.
      return {
        type: 'azure-active-directory-password',
        options: { userName: auth.user, password: secret ?? '', clientId: auth.clientId, tenantId: auth.tenantId ?? '' },
      };
    case 'entra-default':
      return { type: 'azure-active-directory-default', options: auth.clientId ? { clientId: auth.clientId } : {} };
    case 'entra-access-token':
      return { type: 'azure-active-directory-access-token', options: { token: secret ?? '' } };
    case 'entra-service-principal':
      return {
        type: 'azure-active-directory-service-principal-secret',
        options: { clientId: auth.clientId, tenantId: auth.tenantId, clientSecret: secret ?? '' },
      };
    case 'entra-msi-vm':
      return { type: 'azure-active-directory-msi-vm', options: auth.clientId ? { clientId: auth.clientId } : {} };
    case 'entra-msi-app-service':
      return { type: 'azure-active-directory-msi-app-service', options: auth.clientId ? { clientId: auth.clientId } : {} };
  }
}

/**
 * A real server acknowledges ATTENTION only once the cancelled statement has stopped and its work rolled back
 * (MS-TDS 2.2.1.7; reference §8a), which for a long transaction takes as long as the work did. tedious's default
 * cancelTimeout (5 s) would close the workload connection first; two minutes covers the rollback of a workload the
 * product is meant for, and a connection tedious still closes is reported as lost during the cancel.
 */
export const WORKLOAD_CANCEL_TIMEOUT_MS = 120_000;

export function toTediousConfig(profile: ConnectionProfile, secret: string | undefined, role: ConnectionRole): ConnectionConfiguration {
  if (profile.port !== undefined && profile.instanceName) {
    throw new Error('A profile sets either a port or an instance name, not both.');
  }
  return {
    server: profile.server,
    authentication: toTediousAuthentication(profile, secret),
    options: {
      ...(profile.instanceName ? { instanceName: profile.instanceName } : { port: profile.port ?? 1433 }),
      database: profile.database,
      encrypt: profile.encrypt,
      trustServerCertificate: profile.trustServerCertificate,
      appName: applicationName(profile, role),
      connectTimeout: profile.connectTimeoutMs ?? 15000,
      // The workload may run for minutes (loops, WAITFOR); cancellation is explicit instead.
      requestTimeout: role === 'workload' ? 0 : 60000,
      // Unset for the monitor: tedious keeps its own default (it validates cancelTimeout only when given).
      cancelTimeout: role === 'workload' ? profile.cancelTimeoutMs ?? WORKLOAD_CANCEL_TIMEOUT_MS : undefined,
      // Rows are handled per event; never let tedious accumulate them.
      rowCollectionOnDone: false,
      rowCollectionOnRequestCompletion: false,
      useColumnNames: false,
    },
  };
}
