/**
 * The worker's Unix socket: listens (the socket file is controlSocket.ts's to
 * make and keep), authenticates connections by token, batches output into
 * frames for every viewer, and applies the size policy (the most recent
 * active writable viewer decides).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { Emitter, Event } from '../common/event';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { ServerMessage } from '../protocol/messages';
import { Connection, ConnectionHost } from './connection';
import { ConnectionLimits, DEFAULT_LIMITS } from './connectionLimits';
import { OutputBatch } from './outputBatch';
import { cutIncompleteTail } from './incompleteTail';
import type { AgentSession } from './session';
import { ControlSocket } from './controlSocket';

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

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A frame at least this large, sent less than FLOOD_WINDOW_MS ago, means output is flooding. */
const FLOOD_FRAME_BYTES = 1024;
const FLOOD_WINDOW_MS = 2;
/** How long flood output is gathered into one frame: far below what a person notices. */
const FLOOD_COALESCE_MS = 4;

export class ControlServer extends Disposable implements ConnectionHost {
  private readonly socket: ControlSocket;
  private readonly connections = new Set<Connection>();
  /** Output not yet sent: the PTY's reads as they came (never copied: the sockets write them as they are). */
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private flushScheduled = false;
  private lastFlushAt = 0;
  private lastFlushBytes = 0;
  /** The writable viewer that typed or resized last. */
  private active: Connection | undefined;
  /** When each writable viewer was last active (a count): the size goes back to the latest one left. */
  private readonly activeAt = new Map<Connection, number>();
  private activeCount = 0;
  /** Sockets of connections closed after their answers, until they are destroyed. */
  private readonly leaving = new Set<Promise<void>>();
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
    this._register(toDisposable(() => {
      for (const c of [...this.connections]) c.close();
    }));
    this.socket = this._register(new ControlSocket({ accept: (socket) => this.accept(socket), log: opts.log, checkMs: opts.socketCheckMs }));
  }

  /** Listens at `path` and keeps the socket file there (controlSocket.ts). */
  listen(path: string): Promise<void> {
    return this.socket.listen(path);
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

  /** `conn` no longer looks (detached, closed, or its input ended): it decides the size no more. */
  detached(conn: Connection): void {
    this.activeAt.delete(conn);
    if (this.active === conn) this.handSizeOn();
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
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    conn.onDidClose(() => {
      this.connections.delete(conn);
      this.detached(conn);
      // Closed after its answers (endAfterWrites.ts): its socket may still hold them for the client.
      if (!socket.destroyed) {
        this.leaving.add(gone);
        void gone.then(() => this.leaving.delete(gone));
      }
      this._onDidCloseConnection.fire();
    });
  }

  /**
   * Resolves once every connection closed after its answers has handed them to the OS or its client stalled
   * (`stuckMs` reading nothing). The worker waits for it, up to its linger (executionEnd.ts): its exit dropped a
   * `stopped` still queued behind the output a detached viewer had not read yet.
   */
  async answersDelivered(): Promise<void> {
    await Promise.all([...this.leaving]);
  }
}

