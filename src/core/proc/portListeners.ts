/**
 * Who listens on TCP ports, found without binding them. A bind, however brief, takes the port from
 * whoever binds it at that moment (a Run Check's server on an agent's PADDOCK_PORT, a Retry's setup,
 * the agent's own leftover server restarting), so the ports agents hold are only looked at (bug 183).
 *
 * Linux: the listening sockets of /proc/net/tcp and tcp6 (read without blocking, at most
 * MAX_TABLE_BYTES each), and the processes that hold each one (socket inode in /proc/<pid>/fd) with
 * their environment marker. The portable backend: a connect() to 127.0.0.1, ::1 and each of this
 * machine's other addresses, a short wait each; who listens cannot be told there.
 */
import { promises as fsp } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import { mapConcurrently } from '../common/limiter';
import { environOfAsync } from './environ';

/** A listener on a port: the marker value of each process holding it ('' without one); undefined when they cannot be told. */
export interface PortListener {
  owners: readonly string[] | undefined;
}

/** A busy machine has tens of thousands of sockets (150 bytes a line): past this much the table is not read on. */
const MAX_TABLE_BYTES = 8 * 1024 * 1024;
/** How long a connect() to loopback may take: a refusal is immediate; no answer counts as a listener (its backlog full). */
const CONNECT_WAIT_MS = 300;
const LISTEN = '0A';
const SCAN_CONCURRENCY = 8;
const LOOPBACK = ['127.0.0.1', '::1'];
/** Ports asked at once on the portable backend: a few sockets per port, well under a descriptor limit of 256. */
const PROBE_CONCURRENCY = 48;

/** The first MAX_TABLE_BYTES of a /proc table, and whether it was all; undefined when unreadable. */
async function readBounded(file: string): Promise<{ text: string; whole: boolean } | undefined> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(file, 'r');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return { text: Buffer.concat(chunks).toString('utf8'), whole: true };
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total >= MAX_TABLE_BYTES) return { text: Buffer.concat(chunks).toString('utf8'), whole: false };
    }
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The inodes of the listening sockets on `ports` in one /proc/net table's text (its header line skipped). */
export function listeningInodes(text: string, ports: ReadonlySet<number>): Map<number, Set<string>> {
  const found = new Map<number, Set<string>>();
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    const port = parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16);
    if (!ports.has(port)) continue;
    const inodes = found.get(port) ?? new Set<string>();
    inodes.add(f[9]);
    found.set(port, inodes);
  }
  return found;
}

/** The pids holding each of `inodes` (of this user's processes: others' fds cannot be read). */
async function socketHolders(inodes: ReadonlySet<string>): Promise<Map<string, number[]>> {
  const held = new Map<string, number[]>();
  const pids = (await fsp.readdir('/proc')).filter((n) => /^[0-9]+$/.test(n)).map(Number);
  await mapConcurrently(pids, SCAN_CONCURRENCY, async (pid) => {
    let fds: string[];
    try {
      fds = await fsp.readdir(`/proc/${pid}/fd`);
    } catch {
      return undefined;
    }
    const targets = await Promise.all(fds.map((fd) => fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
    for (const target of targets) {
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]) && !held.get(m[1])?.includes(pid)) held.set(m[1], [...(held.get(m[1]) ?? []), pid]);
    }
    return undefined;
  });
  return held;
}

/** Process `pid`'s value of `name` ('' without it); undefined when its environment cannot be read. */
async function markerOf(pid: number, name: string): Promise<string | undefined> {
  const env = await environOfAsync(pid);
  return env === undefined ? undefined : (env.get(name) ?? '');
}

/** Linux: the listeners on `ports` and their owners' markers; ports past a cut table are asked by connect(). */
export async function procfsPortListeners(ports: ReadonlySet<number>, markerName: string): Promise<Map<number, PortListener>> {
  const out = new Map<number, PortListener>();
  if (ports.size === 0) return out;
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map(readBounded));
  if (tables.some((t) => t === undefined || !t.whole)) return connectPortListeners(ports);
  const byPort = new Map<number, Set<string>>();
  for (const table of tables) {
    for (const [port, inodes] of listeningInodes(table!.text, ports)) byPort.set(port, new Set([...(byPort.get(port) ?? []), ...inodes]));
  }
  if (byPort.size === 0) return out;
  const holders = await socketHolders(new Set([...byPort.values()].flatMap((s) => [...s])));
  for (const [port, inodes] of byPort) {
    const pids = [...inodes].flatMap((inode) => holders.get(inode) ?? []);
    // A socket no readable process holds (another user's): its owner cannot be told.
    const unheld = [...inodes].some((inode) => !holders.has(inode));
    const markers = unheld ? [undefined] : await Promise.all(pids.map((pid) => markerOf(pid, markerName)));
    out.set(port, { owners: markers.some((m) => m === undefined) ? undefined : (markers as string[]) });
  }
  return out;
}

/**
 * Whether a connect() to `host`:`port` is answered. On loopback, no answer within the wait counts as
 * a listener (its backlog full: nothing between drops a packet there); on another of this machine's
 * addresses only an accepted connection counts, since a firewall may drop what it does not serve.
 */
function answers(host: string, port: number, silenceListens: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (listening: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(listening);
    };
    const timer = setTimeout(() => done(silenceListens), CONNECT_WAIT_MS);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false)); // refused, or no such address (no IPv6)
  });
}

/**
 * This machine's own addresses other than loopback (a LAN address, a container's bridge): a server
 * bound to one of them alone answers on it and on no loopback address (bug 213). A link-local IPv6
 * address is reached through its interface.
 */
function ownAddresses(): string[] {
  const out: string[] = [];
  for (const [name, infos] of Object.entries(os.networkInterfaces())) {
    for (const info of infos ?? []) {
      if (info.internal) continue;
      out.push(info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80:') ? `${info.address}%${name}` : info.address);
    }
  }
  return out;
}

/**
 * Portable: a listener is whatever answers on loopback or on another of this machine's addresses
 * (a server bound to 192.168.1.5 alone was missed: only loopback was asked); its owner cannot be told.
 */
export async function connectPortListeners(ports: ReadonlySet<number>): Promise<Map<number, PortListener>> {
  const out = new Map<number, PortListener>();
  const hosts = [...LOOPBACK.map((host) => ({ host, silenceListens: true })), ...ownAddresses().map((host) => ({ host, silenceListens: false }))];
  await mapConcurrently([...ports], PROBE_CONCURRENCY, async (port) => {
    const heard = await Promise.all(hosts.map((h) => answers(h.host, port, h.silenceListens)));
    if (heard.some(Boolean)) out.set(port, { owners: undefined });
    return undefined;
  });
  return out;
}
