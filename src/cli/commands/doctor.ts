// `durability-lens doctor --connection NAME|STRING [--json]`: the readiness check — every probe once, read-only, with
// per probe what it reads, its status, rows seen and the exact GRANT; platform, version, edition, encryption, and
// which features will work. Its output is what a user pastes into a bug report. Nothing is created or changed.
import * as fs from 'node:fs';
import { connect, type TediousSession } from '../../db';
import { checkReadiness, describeReadiness } from '../../profile/readiness';
import { jsonText as safeJson } from '../../report/jsonText';
import { declareCommand, flag, section, type ParsedCommandLine, type UsageFailure } from '../options';
import { CONNECTION, outOption } from './sections';
import { failureExit, EXIT, EXIT_CODES_TEXT, resolveCliConnection, type ConnectedCliIO } from './shared';

const OUTPUT = section('Output', {
  json: flag('--json', { help: 'print the report as JSON: probes: [{id, reads, status, rows, grant, reason}], server,\nencryption, features, grantScript' }),
  out: outOption('also write the JSON report to PATH'),
});

const SECTIONS = [CONNECTION, OUTPUT] as const;

async function runDoctor({ options: o }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const { json, out } = o;
  const resolved = resolveCliConnection(io, o);
  if (typeof resolved === 'string') return usageError(resolved);
  const { profile, secret } = resolved;
  const opened: TediousSession[] = [];
  try {
    const monitor = await connect(profile, secret, { role: 'monitor' });
    opened.push(monitor);
    // The second session is what a run's workload would be: it proves whether its waits are visible to the monitor.
    const workload = await connect(profile, secret, { role: 'workload' });
    opened.push(workload);
    const report = await checkReadiness(monitor, { workload, encryption: { encrypted: monitor.encrypted, evidence: monitor.encryptionEvidence } });
    const jsonText = `${safeJson(report)}\n`;
    if (out) (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(out, jsonText);
    io.stdout(json ? jsonText : describeReadiness(report));
    return EXIT.ok;
  } catch (err) {
    return failureExit(io, 'doctor', err);
  } finally {
    await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
  }
}

export const doctorCommand = declareCommand({
  name: 'doctor',
  summary: 'check (read-only) what this server, database and login allow: per probe status, rows and GRANT',
  synopsis: 'Usage: durability-lens doctor --connection NAME|CONNECTION_STRING [--json] [--out PATH]',
  about: `Checks whether this server, database and login are ready for Durability Lens: runs every probe once
(read-only), and prints per probe what it reads, its status (ok / denied / not supported / empty), the rows
it saw and the exact GRANT that fixes it; plus platform, version, edition, encryption, and which features
(profile, compare, trace) will work. Event-session and ALTER permissions are checked, never exercised:
nothing is created or changed on the server. Opens two connections (monitor and workload), like a run.`,
  sections: SECTIONS,
  epilog: EXIT_CODES_TEXT,
  run: runDoctor,
});
