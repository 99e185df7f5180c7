/**
 * The worker's Unix socket: listens (recovering a stale socket file left by a
 * killed worker), authenticates connections by token, batches output into
 * frames for every viewer, and applies the size policy (the most recent
 * active writable viewer decides).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, Stats, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import { failure } from '../common/errors';
import { checkSocketPath, ensureRuntimeDir } from '../protocol/runtimeDir';
import type { ServerMessage } from '../protocol/messages';
import { Connection, ConnectionHost, ConnectionLimits, DEFAULT_LIMITS, OutputBatch } from './connection';
import { cutIncompleteTail } from './incompleteTail';
import type { AgentSession } from './session';

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
        this.server.close();
        if (this.socketPath) {
          try {
            unlinkSync(this.socketPath);
          } catch {
            // already gone
          }
        }
      }),
    );
  }

  private socketCheck: NodeJS.Timeout | undefined;
  private relistening = false;
  /** The socket file this worker made (device and inode): what else is at its path is not it. */
  private ownSocket: { dev: number; ino: number } | undefined;
  /** What was said of a file at the path that is left alone, so that it is said once. */
  private reportedInTheWay: string | undefined;

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
    try {
      await this.tryListen(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      await this.recoverStale(path);
      await this.tryListen(path);
    }
    this.socketPath = path;
    this.madeSocket(path);
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
   * exited. A directory, and a socket another process serves, are left alone (said once).
   * Connections already open are separate sockets and go on.
   */
  private async keepSocket(): Promise<void> {
    const path = this.socketPath;
    if (!path || this.relistening || this._store.isDisposed) return;
    let found: Stats | undefined;
    try {
      found = lstatSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
    }
    if (found && this.isOwnSocket(found)) return;
    this.relistening = true;
    try {
      if (found && !(await this.mayReplace(path, found))) return;
      ensureRuntimeDir(dirname(path));
      // A closed listener unlinks its path (libuv): close the old one before the new file exists.
      // That takes what was put in its place too; unlinked here as well, for a listener already closed.
      const old = this.server;
      old.close();
      if (found) removeIfThere(path);
      this.server = this.createServer();
      await this.tryListen(path);
      if (this._store.isDisposed) {
        this.server.close();
        return;
      }
      this.madeSocket(path);
      this.reportedInTheWay = undefined;
      this.opts.log(`the control socket ${path} was ${found ? 'replaced' : 'removed'} from under the worker; listening on it again`);
    } catch (err) {
      this.opts.log(`the control socket ${path} was ${found ? 'replaced' : 'removed'} and cannot be made again yet: ${(err as Error).message}`);
    } finally {
      this.relistening = false;
    }
  }

  private isOwnSocket(found: Stats): boolean {
    // Without a record of its own (lstat failed right after listening), any socket there is taken for it.
    if (!this.ownSocket) return found.isSocket();
    return found.dev === this.ownSocket.dev && found.ino === this.ownSocket.ino;
  }

  /** Whether what is at the worker's socket path may be replaced: not a directory, nor a socket that answers. */
  private async mayReplace(path: string, found: Stats): Promise<boolean> {
    const inTheWay = found.isDirectory() ? 'a directory' : found.isSocket() && (await answers(path)) ? 'a socket another process serves' : undefined;
    if (!inTheWay) return true;
    if (this.reportedInTheWay !== inTheWay) this.opts.log(`the control socket ${path} was replaced by ${inTheWay}; left alone, the worker cannot be reached until it is removed`);
    this.reportedInTheWay = inTheWay;
    return false;
  }

  /** Private, and known as this worker's own. */
  private madeSocket(path: string): void {
    try {
      chmodSync(path, 0o600);
    } catch {
      // the 0700 directory is the real protection
    }
    try {
      const made = lstatSync(path);
      this.ownSocket = { dev: made.dev, ino: made.ino };
    } catch {
      this.ownSocket = undefined;
    }
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

  private tryListen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => {
        this.server.off('listening', onListening);
        reject(err);
      };
      const onListening = () => {
        this.server.off('error', onError);
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen(path);
    });
  }

  /** A socket file from a killed worker: nobody answers (ECONNREFUSED) and it is a socket → remove it. */
  private async recoverStale(path: string): Promise<void> {
    if (await answers(path)) throw failure(`Another process is already serving the control socket ${path}.`);
    if (!lstatSync(path).isSocket()) throw failure(`${path} exists and is not a socket; refusing to replace it.`);
    unlinkSync(path);
  }
}

/** Whether a process accepts connections on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already (the old listener's close)
  }
}
