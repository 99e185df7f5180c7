/**
 * Ports for agents: each agent that asks gets a block of consecutive ports
 * from the range, none shared with another agent not yet cleaned up. Taken
 * under a store-wide lock, judged from the records themselves (no separate
 * table to drift): an agent holds its block until its cleanup is complete, or
 * when it ended without ever getting a worktree. A port some other program on
 * this machine listens on (the person's dev server, a server an agent left
 * running after its cleanup) is skipped too: a bind on it is tried first. The
 * ports agents hold are never bound, only looked at (blockCleanupFrees).
 */
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { failure } from '../common/errors';
import type { PortRange } from '../repoConfig/worktreeConfig';
import type { JobRecord, JobStore } from '../store';
import { DEFAULT_LOCK_OPTIONS, withLock } from '../store/locks';
import { isTerminalState } from '../store/schema';
import { makeDirs } from '../common/makeDirs';
import { processBackend } from '../proc/backend';
import { AGENT_MARKER_ENV } from '../worker/agentMarker';
import { firstFreeBlock } from './portBlocks';
import { PortHolders, portShortageWords } from './portShortage';

export { firstFreeBlock } from './portBlocks';

export const PORTS_LOCK = path.join('coordinator', 'ports.lock');

/**
 * The ports a record holds: none once its cleanup is complete, or once it ended with no worktree on
 * disk. The record names its worktree from the start, before any launch made it: an agent stopped
 * while queued never had one, and held its block until a cleanup of nothing (bug 56). Without its
 * worktree nothing of it can run again (Retry refuses; Restore reclaims a block, `reclaimPorts`).
 */
export function heldPorts(job: JobRecord): readonly number[] {
  const ports = job.setup?.ports ?? [];
  if (ports.length === 0) return ports;
  if (job.cleanup?.phase === 'complete') return [];
  if (isTerminalState(job.lifecycle.state) && (job.worktree === null || !existsSync(job.worktree))) return [];
  return ports;
}

/** Gives agent `id` a block of `count` ports and records it (`setup.ports`); returns the block. */
export async function allocatePorts(store: JobStore, id: string, count: number, range: PortRange | null): Promise<number[]> {
  if (count <= 0 || range === null) return []; // no range is planned without ports (mergeWorktreeConfig)
  return withPortsLock(store, async (guard) => {
    const holders = await portsOfOthers(store, id);
    const busy = new Set<number>();
    const block = await freeBlock(holders.used, count, range, busy);
    if (!block) {
      const { freed, unsure } = await blockCleanupFrees(holders, count, range, busy);
      throw failure(portShortageWords(count, range, { ...holders, busy, freed, unsure }));
    }
    guard.assertHeld();
    await recordPorts(store, id, block);
    return block;
  });
}

/**
 * A restored agent's ports: its completed cleanup released them, and another agent may hold some of
 * them since. It keeps its block when none of it is taken, else gets a new block of as many ports
 * (none when no block is left or no range is set: its next run says so by having no PADDOCK_PORT).
 */
export async function reclaimPorts(store: JobStore, id: string, range: PortRange | null): Promise<number[]> {
  return withPortsLock(store, async (guard) => {
    const own = (await store.read(id)).setup?.ports ?? [];
    if (own.length === 0) return [];
    const { used } = await portsOfOthers(store, id);
    if (!own.some((port) => used.has(port))) return own;
    const block = (range ? await freeBlock(used, own.length, range) : null) ?? [];
    guard.assertHeld();
    await recordPorts(store, id, block);
    return block;
  });
}

async function withPortsLock<T>(store: JobStore, work: (guard: { assertHeld(): void }) => Promise<T>): Promise<T> {
  await makeDirs(path.join(store.home, path.dirname(PORTS_LOCK)), 0o700);
  return withLock(path.join(store.home, PORTS_LOCK), 'the port allocation', DEFAULT_LOCK_OPTIONS, work);
}

/** The ports every other agent holds (judged from the records): all of them, and by ended and live agents. */
async function portsOfOthers(store: JobStore, id: string): Promise<Omit<PortHolders, 'busy' | 'freed' | 'unsure'> & { used: Set<number> }> {
  const used = new Set<number>();
  const live = new Set<number>();
  const ended = new Map<string, readonly number[]>();
  for (const entry of await store.list()) {
    if (!entry.ok || entry.job.id === id) continue;
    const held = heldPorts(entry.job);
    if (held.length === 0) continue;
    for (const p of held) used.add(p);
    if (isTerminalState(entry.job.lifecycle.state)) ended.set(entry.job.id, held);
    else for (const p of held) live.add(p);
  }
  return { used, live, ended };
}

/**
 * The block a cleanup of ended agents would free, or null, and how many of its ports a program
 * listens on that the cleanup may not end. The allocation's search, with the ended agents' ports
 * left out; those are never bound (a bind takes the port from a Run Check on that agent, a Retry's
 * setup or its own leftover server), only looked at for listeners. A listener that is the agent's
 * own (its processes carry its marker) ends with its cleanup; one whose owner cannot be told (the
 * portable backend) or a stranger (a server the agent's setup started without the marker, as a
 * container, may still end with its teardown) leaves the advice hedged.
 */
async function blockCleanupFrees(
  holders: Omit<PortHolders, 'busy' | 'freed' | 'unsure'>,
  count: number,
  range: PortRange,
  busy: Set<number>,
): Promise<{ freed: number[] | null; unsure: number }> {
  const holderOf = new Map<number, string>();
  for (const [id, ports] of holders.ended) for (const p of ports) if (p >= range.first && p <= range.last) holderOf.set(p, id);
  if (holderOf.size === 0) return { freed: null, unsure: 0 };
  const judged = new Set(holderOf.keys());
  const listeners = await processBackend().portListeners(judged, AGENT_MARKER_ENV);
  const ownsIt = (port: number, owners: readonly string[] | undefined) => owners !== undefined && owners.length > 0 && owners.every((o) => o === holderOf.get(port));
  const strange = new Set([...listeners].filter(([port, l]) => !ownsIt(port, l.owners)).map(([port]) => port));
  const sure = await freeBlock(new Set([...holders.live, ...busy, ...strange]), count, range, busy, judged);
  if (sure) return { freed: sure, unsure: 0 };
  const maybe = await freeBlock(new Set([...holders.live, ...busy]), count, range, busy, judged);
  if (maybe) return { freed: maybe, unsure: maybe.filter((p) => strange.has(p)).length };
  for (const port of strange) busy.add(port); // no cleanup frees a block even if it ends them: said as other programs
  return { freed: null, unsure: 0 };
}

/**
 * The first block of `count` ports that no agent holds and no program listens on, or null; those
 * found listened on are added to `busy`. The ports in `judged` are taken as free without a bind.
 */
async function freeBlock(used: Set<number>, count: number, range: PortRange, busy = new Set<number>(), judged: ReadonlySet<number> = new Set()): Promise<number[] | null> {
  let block = firstFreeBlock(used, count, range);
  while (block) {
    const inUse = await portsInUse(block.filter((p) => !judged.has(p)));
    if (inUse.length === 0) return block;
    for (const port of inUse) {
      used.add(port);
      busy.add(port);
    }
    block = firstFreeBlock(used, count, range);
  }
  return null;
}

function recordPorts(store: JobStore, id: string, block: number[]): Promise<unknown> {
  return store.update(id, (j) => ({ ...j, setup: { ports: block, state: j.setup?.state ?? 'none', exitCode: j.setup?.exitCode ?? null } }));
}

/** The ports of `block` that something on this machine listens on already. */
async function portsInUse(block: readonly number[]): Promise<number[]> {
  const busy = await Promise.all(block.map((port) => listenedOn(port)));
  return block.filter((_, i) => busy[i]);
}

/**
 * Whether a program listens on `port`, on any local address: a bind on loopback, on every IPv4
 * address and on every IPv6 one is tried (a server on 127.0.0.1 alone does not stop a bind on
 * another address on every system). Only "in use" counts: a machine without IPv6 has no listener there.
 */
async function listenedOn(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '0.0.0.0', '::']) {
    const inUse = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
    });
    if (inUse) return true;
  }
  return false;
}
