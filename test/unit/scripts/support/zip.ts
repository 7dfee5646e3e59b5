// Reads a zip archive (a VSIX is one) without unpacking it to disk: the central directory for the names, a local
// header + raw DEFLATE for one entry's bytes (PKWARE APPNOTE.TXT 4.3.7 local file header, 4.3.12 central directory
// header, 4.3.16 end of central directory; method 0 stored, 8 deflated).
import { inflateRawSync } from 'node:zlib';

interface Entry { name: string; method: number; compressedSize: number; localOffset: number }

function centralDirectory(archive: Buffer): Entry[] {
  let eocd = -1;
  for (let i = archive.length - 22; i >= Math.max(0, archive.length - 22 - 0xffff); i--) {
    if (archive.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error('not a zip archive: no end-of-central-directory record');
  const count = archive.readUInt16LE(eocd + 10);
  let offset = archive.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let n = 0; n < count; n++) {
    if (archive.readUInt32LE(offset) !== 0x02014b50) throw new Error(`bad central directory entry at ${offset}`);
    const nameLength = archive.readUInt16LE(offset + 28);
    entries.push({
      name: archive.toString('utf8', offset + 46, offset + 46 + nameLength),
      method: archive.readUInt16LE(offset + 10),
      compressedSize: archive.readUInt32LE(offset + 20),
      localOffset: archive.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + archive.readUInt16LE(offset + 30) + archive.readUInt16LE(offset + 32);
  }
  return entries;
}

export function zipNames(archive: Buffer): string[] {
  return centralDirectory(archive).map((e) => e.name);
}

/** One entry's content, or undefined when the archive has no such entry. */
export function zipEntry(archive: Buffer, name: string): Buffer | undefined {
  const entry = centralDirectory(archive).find((e) => e.name === name);
  if (!entry) return undefined;
  const local = entry.localOffset;
  if (archive.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`);
  const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
  const data = archive.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(data);
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`${name}: compression method ${entry.method} not read here`);
}
