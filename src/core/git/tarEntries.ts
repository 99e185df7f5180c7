/**
 * The entries of a tar file as its headers say (name, type, size), read in
 * Node rather than parsed from `tar --list`: tar's listing quotes names in a
 * locale- and option-dependent way and leaves sizes to its verbose format,
 * while the headers are exact. Only headers are read; contents are skipped.
 * Names keep their bytes as the walk's do (pathBytes.ts), so the two compare.
 */
import { promises as fs } from 'node:fs';
import { failure } from '../common/errors';
import { decodeName } from './pathBytes';

export interface TarEntry {
  /** As stored, without a trailing '/' (tar adds one to folders). */
  name: string;
  /** The header's type flag: '0' file, '1' hard link, '2' symlink, '5' folder… */
  type: string;
  size: number;
}

const BLOCK = 512;

function field(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return decodeName(raw.subarray(0, end === -1 ? length : end));
}

/** Octal digits, or GNU's base-256 form for values that do not fit (first byte's high bit set). */
function numeric(block: Buffer, start: number, length: number): number {
  if (block[start] & 0x80) {
    let value = block[start] & 0x7f;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i];
    return value;
  }
  const text = field(block, start, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

/** pax records, "<length> <key>=<value>\n" each. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!(length > 0)) break;
    const record = decodeName(data.subarray(space + 1, at + length - 1));
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

export async function tarEntries(file: string): Promise<TarEntry[]> {
  const handle = await fs.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const entries: TarEntry[] = [];
    const global = new Map<string, string>();
    let local = new Map<string, string>();
    let longName: string | null = null;
    let at = 0;
    const header = Buffer.alloc(BLOCK);
    while (at + BLOCK <= size) {
      await handle.read(header, 0, BLOCK, at);
      if (header.every((b) => b === 0)) return entries;
      const type = String.fromCharCode(header[156] || 0x30);
      const headerSize = numeric(header, 124, 12);
      const dataAt = at + BLOCK;
      if (type === 'x' || type === 'g' || type === 'L') {
        at = dataAt + Math.ceil(headerSize / BLOCK) * BLOCK;
        const data = Buffer.alloc(headerSize);
        await handle.read(data, 0, headerSize, dataAt);
        if (type === 'L') longName = decodeName(data).replace(/\0+$/, '');
        else for (const [k, v] of paxRecords(data)) (type === 'g' ? global : local).set(k, v);
        continue;
      }
      const pax = (key: string) => local.get(key) ?? global.get(key);
      const prefix = field(header, 345, 155);
      const name = pax('path') ?? longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      const paxSize = pax('size');
      // A pax size replaces the header's (which cannot hold 8 GiB or more), for skipping the data too.
      const entrySize = paxSize !== undefined ? Number(paxSize) : headerSize;
      at = dataAt + Math.ceil(entrySize / BLOCK) * BLOCK;
      entries.push({ name: name.replace(/\/+$/, ''), type, size: entrySize });
      local = new Map();
      longName = null;
    }
    throw failure(`The archive ${file} ends without its end-of-archive blocks.`);
  } finally {
    await handle.close();
  }
}
