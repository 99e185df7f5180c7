/**
 * The worker's Unix socket: listens (recovering a stale socket file left by a
 * killed worker), authenticates connections by token, batches output into
 * frames for every viewer, and applies the size policy (the most recent
 * active writable viewer decides).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, Stats } from 'node:fs';
import { dirname } from 'node:path';
import { createServer, Server, Socket } from 'node:net';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import { failure } from '../common/errors';
import { checkSocketPath, ensureRuntimeDir } from '../protocol/runtimeDir';
import type { ServerMessage } from '../protocol/messages';
import { Connection, ConnectionHost, ConnectionLimits, DEFAULT_LIMITS, OutputBatch } from './connection';
import { cutIncompleteTail } from './incompleteTail';
import type { AgentSession } from './session';
import { asidePath, FileId, fileIdOf, isSameFile, lstatIfThere, placeSocket, probeSocket, refusal, removeIfOwn } from './socketFile';

/**
 * Output bytes batched into one frame at most: large enough that framing costs
 * little per byte; as a JSON line (for a viewer without binary frames) far
 * below the client's 16 MiB limit even with escaping.
 */
const MAX_BATCH_BYTES = 64 * 1024;

export interface ControlServerOptions {
  session: AgentSession;
  controlToken: string;
  agentToken: string;
  /** Applies a size chosen by the active viewer. */
  applySize: (cols: number, rows: number) => void;
  log: (message: string) => void;
  limits?: Partial<ConnectionLimits>;
  /** How often the socket file is checked for having been removed from under the worker. */
  socketCheckMs?: number;
}

/**
 * The runtime dir is not ours alone to keep: logind removes `$XDG_RUNTIME_DIR` when the person's
 * last session ends (agents go on running), and tmp cleaners age out `/tmp` files. A worker whose
 * socket file is gone is alive but unreachable (no attach, send or screen, ever), so it looks often.
 */
const SOCKET_CHECK_MS = 2000;

/**
 * How long a socket another process serves at the path is left before it is asked again, doubling
 * to the longest: each probe it does not accept stays in its backlog, and a probe every 2 s filled a
 * suspended or slow process's queue (then refused with EAGAIN, taken for dead).
 */
const FOREIGN_PROBE_FIRST_MS = 30_000;
const FOREIGN_PROBE_LONGEST_MS = 10 * 60_000;

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A frame at least this large, sent less than FLOOD_WINDOW_MS ago, means output is flooding. */
const FLOOD_FRAME_BYTES = 1024;
const FLOOD_WINDOW_MS = 2;
/** How long flood output is gathered into one frame: far below what a person notices. */
const FLOOD_COALESCE_MS = 4;

export class ControlServer extends Disposable implements ConnectionHost {
  private server: Server;
  private readonly connections = new Set<Connection>();
  /** Output not yet sent: the PTY's reads as they came (never copied: the sockets write them as they are). */
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private flushScheduled = false;
  private lastFlushAt = 0;
  private lastFlushBytes = 0;
  private socketPath: string | undefined;
  /** The writable viewer that typed or resized last. */
  private active: Connection | undefined;
  /** When each writable viewer was last active (a count): the size goes back to the latest one left. */
  private readonly activeAt = new Map<Connection, number>();
  private activeCount = 0;
  private readonly controlDigest: Buffer;
  private readonly agentDigest: Buffer;
  readonly limits: ConnectionLimits;
  private readonly _onDidCloseConnection = this._register(new Emitter<void>());
  /** A connection (viewer, control client, agent signal) closed. */
  readonly onDidCloseConnection: Event<void> = this._onDidCloseConnection.event;

  constructor(private readonly opts: ControlServerOptions) {
    super();
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.controlDigest = digest(opts.controlToken);
    this.agentDigest = digest(opts.agentToken);
    this.server = this.createServer();
    this._register(
      toDisposable(() => {
        clearInterval(this.socketCheck);
        for (const c of [...this.connections]) c.close();
        // Bound aside, its close removes no file at the path; only the worker's own file goes.
        this.server.close();
        if (this.socketPath) removeIfOwn(this.socketPath, this.ownSocket);
      }),
    );
  }

  private socketCheck: NodeJS.Timeout | undefined;
  private relistening = false;
  /** The socket file this worker made (device and inode): what else is at its path is not it. */
  private ownSocket: FileId | undefined;
  /** A file at the path left alone: said once, and a socket there asked again only after `waitMs`. */
  private leftAlone: { id: FileId; what: string; askAgainAt: number; waitMs: number } | undefined;

  private createServer(): Server {
    const server = createServer((socket) => this.accept(socket));
    server.on('error', (err) => this.opts.log(`control socket error: ${err.message}`));
    return server;
  }

  get session(): AgentSession {
    return this.opts.session;
  }

  get hasWritableViewer(): boolean {
    for (const c of this.connections) if (c.isWritableViewer) return true;
    return false;
  }

  /** Open connections of any kind (viewers, control clients such as a stop requester, agent signals). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Runs `action` once no client is connected (at once when none is), or after `lingerMs` at the
   * latest: the worker of an ended agent stays only while someone may still take the exit and the
   * final screen.
   */
  whenUnwatched(lingerMs: number, action: () => void): void {
    const timer = setTimeout(action, lingerMs);
    timer.unref?.();
    const whenNobody = () => {
      if (this.connections.size > 0) return;
      clearTimeout(timer);
      action();
    };
    this._register(this.onDidCloseConnection(whenNobody));
    this._register(toDisposable(() => clearTimeout(timer)));
    whenNobody();
  }

  get viewerCount(): number {
    let n = 0;
    for (const c of this.connections) if (c.isViewer) n++;
    return n;
  }

  async listen(path: string): Promise<void> {
    checkSocketPath(path);
    const bound = await this.bindAside(path);
    try {
      await this.takePath(path, bound.aside);
    } catch (err) {
      bound.server.close();
      throw err;
    }
    this.server.close();
    this.server = bound.server;
    this.ownSocket = bound.id;
    this.socketPath = path;
    if (!this.socketCheck) {
      this.socketCheck = setInterval(() => void this.keepSocket(), this.opts.socketCheckMs ?? SOCKET_CHECK_MS);
      this.socketCheck.unref?.();
    }
  }

  /**
   * Listens again when the socket file (or its whole directory) was removed, or something else
   * was put at its path (a file, a link, a dead socket): the path is this execution's by name,
   * recorded in the job and in the agent's environment, and the worker behind anything else there
   * is alive but unreachable (no attach, send, screen or stop, ever), while clients say it has
   * exited. A directory, and a socket a process may serve, are left alone (said once). Nothing is
   * removed at the path but a file judged dead, replaced at once by the new socket (placeSocket).
   * Connections already open are separate sockets and go on.
   */
  private async keepSocket(): Promise<void> {
    const path = this.socketPath;
    if (!path || this.relistening || this._store.isDisposed) return;
    let found: Stats | undefined;
    try {
      found = lstatIfThere(path);
    } catch {
      return;
    }
    if (isSameFile(found, this.ownSocket)) return;
    this.relistening = true;
    try {
      if (found && !(await this.mayReplace(path, found))) return;
      ensureRuntimeDir(dirname(path));
      const bound = await this.bindAside(path);
      let placed = false;
      try {
        placed = !this._store.isDisposed && placeSocket(bound.aside, path, found && fileIdOf(found));
      } finally {
        if (!placed) bound.server.close();
      }
      if (!placed) return;
      // The old listener was bound aside too: its close leaves the path alone.
      this.server.close();
      this.server = bound.server;
      this.ownSocket = bound.id;
      this.leftAlone = undefined;
      this.opts.log(`the control socket ${path} was ${found ? 'replaced' : 'removed'} from under the worker; listening on it again`);
    } catch (err) {
      this.opts.log(`the control socket ${path} was ${found ? 'replaced' : 'removed'} and cannot be made again yet: ${(err as Error).message}`);
    } finally {
      this.relistening = false;
    }
  }

  /**
   * Whether what is at the worker's socket path may be replaced: not a directory, nor a socket a
   * process may serve (only a refused connection proves none does). A socket left alone is asked
   * again only after a while, longer each time: the probes it never accepts fill its backlog.
   */
  private async mayReplace(path: string, found: Stats): Promise<boolean> {
    const id = fileIdOf(found);
    const known = this.leftAlone && isSameFile(found, this.leftAlone.id) ? this.leftAlone : undefined;
    let what: string;
    if (found.isDirectory()) what = 'a directory';
    else if (!found.isSocket()) return true;
    else if (known && Date.now() < known.askAgainAt) return false;
    else if ((await probeSocket(path)) !== 'alive') return true;
    else what = 'a socket another process may serve';
    if (known?.what !== what) this.opts.log(`the control socket ${path} was replaced by ${what}; left alone, the worker cannot be reached until it is removed`);
    const waitMs = known ? Math.min(known.waitMs * 2, FOREIGN_PROBE_LONGEST_MS) : FOREIGN_PROBE_FIRST_MS;
    this.leftAlone = { id, what, askAgainAt: Date.now() + waitMs, waitMs };
    return false;
  }

  /**
   * A new listener bound to a private name beside `path` (see socketFile.ts: its close removes only
   * that name), private, and known by device and inode.
   */
  private async bindAside(path: string): Promise<{ server: Server; aside: string; id: FileId }> {
    const aside = asidePath(path);
    const server = this.createServer();
    await listenOn(server, aside);
    try {
      chmodSync(aside, 0o600);
    } catch {
      // the 0700 directory is the real protection
    }
    try {
      return { server, aside, id: fileIdOf(lstatSync(aside)) };
    } catch (err) {
      server.close();
      throw err;
    }
  }

  /**
   * At start: the path is taken if empty, or in place of a socket left by a killed worker (nobody
   * answers: ECONNREFUSED, and only that). A socket a process may serve, or any other file, is refused.
   */
  private async takePath(path: string, aside: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = lstatIfThere(path);
      if (!found) {
        if (placeSocket(aside, path)) return;
        continue;
      }
      if (!found.isSocket()) throw refusal(path, found);
      const probe = await probeSocket(path);
      if (probe === 'alive') throw refusal(path, found);
      if (probe === 'dead' && placeSocket(aside, path, fileIdOf(found))) return;
    }
    throw failure(`The control socket ${path} kept changing while the worker made it; refusing to take it.`);
  }

  log(message: string): void {
    this.opts.log(message);
  }

  authenticate(token: string): 'control' | 'agent' | undefined {
    const d = digest(token);
    if (timingSafeEqual(d, this.controlDigest)) return 'control';
    if (timingSafeEqual(d, this.agentDigest)) return 'agent';
    return undefined;
  }

  /**
   * Size policy: the writable viewer that typed or resized last decides. Only a
   * real change resizes (and redraws): re-attaching at the same size leaves the
   * agent's screen untouched, as the snapshot already shows it exactly.
   */
  markActive(conn: Connection, cols: number, rows: number): void {
    this.active = conn;
    this.activeAt.set(conn, ++this.activeCount);
    if (cols !== this.session.cols || rows !== this.session.rows) this.opts.applySize(cols, rows);
  }

  /**
   * The active viewer left (detached, closed, dropped): the writable viewer active before it decides
   * the size again, as if it had just typed. Otherwise the agent stayed sized for a viewer that no
   * longer looks, cut or garbled in the ones still attached. With none left, the size stays.
   */
  private handSizeOn(): void {
    this.active = undefined;
    if (this._store.isDisposed) return;
    let next: Connection | undefined;
    for (const [conn, at] of this.activeAt) {
      if (conn.isWritableViewer && (!next || at > (this.activeAt.get(next) ?? 0))) next = conn;
    }
    if (next) this.markActive(next, next.cols, next.rows);
  }

  /**
   * Queues output for every viewer. A lone burst (a keystroke echo) goes out on
   * the next turn; during a flood, when the previous frame was large and recent,
   * frames are coalesced for a few ms: node-pty delivers each ~4 KB read in its
   * own turn, and one frame per read made framing cost more than the bytes
   * (measured: 50 MB as 12,600 frames; coalesced, ~1,200 and −20 % worker CPU).
   */
  broadcastOutput(data: Buffer): void {
    if (this.viewerCount === 0) {
      // Nobody to send it to: only what the next read completes is kept, for a viewer attaching before that.
      this.batch.push(data);
      const unfinished = cutIncompleteTail(this.batch);
      this.batch = unfinished ? [unfinished] : [];
      this.batchBytes = unfinished?.length ?? 0;
      return;
    }
    for (let at = 0; at < data.length; at += MAX_BATCH_BYTES) {
      const piece = data.length <= MAX_BATCH_BYTES ? data : data.subarray(at, at + MAX_BATCH_BYTES);
      this.batch.push(piece);
      this.batchBytes += piece.length;
      if (this.batchBytes >= MAX_BATCH_BYTES) this.flushOutput();
    }
    if (this.flushScheduled || this.batchBytes === 0) return;
    this.flushScheduled = true;
    const flooding = this.lastFlushBytes >= FLOOD_FRAME_BYTES && performance.now() - this.lastFlushAt < FLOOD_WINDOW_MS;
    const flush = () => {
      this.flushScheduled = false;
      this.flushOutput();
    };
    if (flooding) setTimeout(flush, FLOOD_COALESCE_MS);
    else setImmediate(flush);
  }

  /**
   * Hands the batch to every viewer. A character or an escape sequence cut by
   * the end of a PTY read stays for the next batch (so each frame decodes on
   * its own, and a viewer's first frame after a snapshot starts with whole
   * sequences), except at the very end (`final`). Held back from a snapshot
   * point, it still reaches the viewer right after the snapshot, whole.
   */
  flushOutput(final = false): void {
    if (this.batchBytes === 0) return;
    const chunks = this.batch;
    const cut = final ? undefined : cutIncompleteTail(chunks);
    const bytes = this.batchBytes - (cut?.length ?? 0);
    this.batch = cut ? [cut] : [];
    this.batchBytes = cut?.length ?? 0;
    if (bytes === 0) return;
    this.lastFlushAt = performance.now();
    this.lastFlushBytes = bytes;
    const batch = new OutputBatch(chunks, bytes);
    for (const c of this.connections) c.deliverOutput(batch);
  }

  broadcast(message: ServerMessage): void {
    this.flushOutput();
    for (const c of this.connections) if (c.isViewer) c.sendMessage(message);
  }

  notifyExit(message: ServerMessage): void {
    this.flushOutput(true);
    for (const c of this.connections) c.notifyExit(message);
  }

  private accept(socket: Socket): void {
    if (this._store.isDisposed) {
      socket.destroy();
      return;
    }
    const conn = new Connection(socket, this);
    this.connections.add(conn);
    conn.onDidClose(() => {
      this.connections.delete(conn);
      this.activeAt.delete(conn);
      if (this.active === conn) this.handSizeOn();
      this._onDidCloseConnection.fire();
    });
  }

}

function listenOn(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(path);
  });
}
