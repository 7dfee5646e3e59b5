// `durability-lens doctor --connection NAME|STRING [--json]`: the readiness check — every probe once, read-only, with
// per probe what it reads, its status, rows seen and the exact GRANT; platform, version, edition, encryption, and
// which features will work. Its output is what a user pastes into a bug report. Nothing is created or changed.
import * as fs from 'node:fs';
import { connect, type TediousSession } from '../../db';
import { checkReadiness, describeReadiness } from '../../profile/readiness';
import type { CliCommand } from '../io';
import { CONNECTION_USAGE, failureExit, EXIT, EXIT_CODES_TEXT, newConnectionArgs, resolveCliConnection, takeConnectionArg, usageError, type ConnectedCliIO } from './shared';

const usage = `Usage: durability-lens doctor --connection NAME|CONNECTION_STRING [--json]

Checks whether this server, database and login are ready for Durability Lens: runs every probe once
(read-only), and prints per probe what it reads, its status (ok / denied / not supported / empty), the rows
it saw and the exact GRANT that fixes it; plus platform, version, edition, encryption, and which features
(profile, compare, trace) will work. Event-session and ALTER permissions are checked, never exercised:
nothing is created or changed on the server. Opens two connections (monitor and workload), like a run.

${CONNECTION_USAGE}

Output:
  --json                        print the report as JSON: probes: [{id, reads, status, rows, grant, reason}], server,
                                encryption, features, grantScript
  --out PATH                    also write the JSON report to PATH

${EXIT_CODES_TEXT}
`;

export async function runDoctor(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  let json = false;
  let out: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const used = takeConnectionArg(args, i, conn);
    if (typeof used === 'string') return usageError(io, 'doctor', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--out') {
      const value = args[++i];
      if (value === undefined) return usageError(io, 'doctor', '--out needs a value', usage);
      out = value;
    } else return usageError(io, 'doctor', `unknown option '${arg}'`, usage);
  }
  const resolved = resolveCliConnection(io, conn);
  if (typeof resolved === 'string') return usageError(io, 'doctor', resolved, usage);
  const { profile, secret } = resolved;
  const opened: TediousSession[] = [];
  try {
    const monitor = await connect(profile, secret, { role: 'monitor' });
    opened.push(monitor);
    // The second session is what a run's workload would be: it proves whether its waits are visible to the monitor.
    const workload = await connect(profile, secret, { role: 'workload' });
    opened.push(workload);
    const report = await checkReadiness(monitor, { workload, encryption: { encrypted: monitor.encrypted, evidence: monitor.encryptionEvidence } });
    const jsonText = `${JSON.stringify(report, null, 2)}\n`;
    if (out) (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(out, jsonText);
    io.stdout(json ? jsonText : describeReadiness(report));
    return EXIT.ok;
  } catch (err) {
    return failureExit(io, 'doctor', err);
  } finally {
    await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
  }
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'check (read-only) what this server, database and login allow: per probe status, rows and GRANT',
  usage,
  run: (args, io) => runDoctor(args, io),
};
