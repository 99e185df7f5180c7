/**
 * The worker's Unix socket: listens (recovering a stale socket file left by a
 * killed worker), authenticates connections by token, batches output into
 * frames for every viewer, and applies the size policy (the most recent
 * active writable viewer decides).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, Server, Socket } from 'node:net';
import { Disposable, toDisposable } from '../common/lifecycle';
import { failure } from '../common/errors';
import { encodeFrame } from '../protocol/framing';
import { checkSocketPath } from '../protocol/runtimeDir';
import type { ServerMessage } from '../protocol/messages';
import { Connection, ConnectionHost, ConnectionLimits, DEFAULT_LIMITS } from './connection';
import type { AgentSession } from './session';

/** Output characters batched into one frame at most (JSON escaping can grow it ~6×; the client accepts 16 MiB lines). */
const MAX_BATCH_CHARS = 64 * 1024;

export interface ControlServerOptions {
  session: AgentSession;
  controlToken: string;
  agentToken: string;
  /** Applies a size chosen by the active viewer. */
  applySize: (cols: number, rows: number) => void;
  log: (message: string) => void;
  limits?: Partial<ConnectionLimits>;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** A frame at least this large, sent less than FLOOD_WINDOW_MS ago, means output is flooding. */
const FLOOD_FRAME_CHARS = 1024;
const FLOOD_WINDOW_MS = 2;
/** How long flood output is gathered into one frame: far below what a person notices. */
const FLOOD_COALESCE_MS = 4;

export class ControlServer extends Disposable implements ConnectionHost {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  private batch = '';
  private flushScheduled = false;
  private lastFlushAt = 0;
  private lastFlushChars = 0;
  private socketPath: string | undefined;
  /** The writable viewer that typed or resized last. */
  private active: Connection | undefined;
  private readonly controlDigest: Buffer;
  private readonly agentDigest: Buffer;
  readonly limits: ConnectionLimits;

  constructor(private readonly opts: ControlServerOptions) {
    super();
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.controlDigest = digest(opts.controlToken);
    this.agentDigest = digest(opts.agentToken);
    this.server = createServer((socket) => this.accept(socket));
    this.server.on('error', (err) => opts.log(`control socket error: ${err.message}`));
    this._register(
      toDisposable(() => {
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

  get session(): AgentSession {
    return this.opts.session;
  }

  get hasWritableViewer(): boolean {
    for (const c of this.connections) if (c.isWritableViewer) return true;
    return false;
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
    try {
      chmodSync(path, 0o600);
    } catch {
      // the 0700 directory is the real protection
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
    if (cols !== this.session.cols || rows !== this.session.rows) this.opts.applySize(cols, rows);
  }

  /**
   * Queues output for every viewer. A lone burst (a keystroke echo) goes out on
   * the next turn; during a flood, when the previous frame was large and recent,
   * frames are coalesced for a few ms: node-pty delivers each ~4 KB read in its
   * own turn, and one frame per read made framing cost more than the bytes
   * (measured: 50 MB as 12,600 frames; coalesced, ~1,200 and −20 % worker CPU).
   */
  broadcastOutput(data: string): void {
    if (this.viewerCount === 0) return;
    this.batch += data;
    if (this.batch.length >= MAX_BATCH_CHARS) {
      this.flushOutput();
      return;
    }
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const flooding = this.lastFlushChars >= FLOOD_FRAME_CHARS && performance.now() - this.lastFlushAt < FLOOD_WINDOW_MS;
    const flush = () => {
      this.flushScheduled = false;
      this.flushOutput();
    };
    if (flooding) setTimeout(flush, FLOOD_COALESCE_MS);
    else setImmediate(flush);
  }

  flushOutput(): void {
    if (!this.batch) return;
    const raw = this.batch;
    this.batch = '';
    this.lastFlushAt = performance.now();
    this.lastFlushChars = raw.length;
    // Encoded once, and only if some viewer will actually be sent this batch.
    let frame: string | undefined;
    const encoded = () => (frame ??= encodeFrame({ type: 'output', data: raw }));
    for (const c of this.connections) c.deliverOutput(encoded, raw);
  }

  broadcast(message: ServerMessage): void {
    this.flushOutput();
    for (const c of this.connections) if (c.isViewer) c.sendMessage(message);
  }

  notifyExit(message: ServerMessage): void {
    this.flushOutput();
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
      if (this.active === conn) this.active = undefined;
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
    const answered = await new Promise<boolean>((resolve) => {
      const probe = createConnection(path);
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (answered) throw failure(`Another process is already serving the control socket ${path}.`);
    if (!lstatSync(path).isSocket()) throw failure(`${path} exists and is not a socket; refusing to replace it.`);
    unlinkSync(path);
  }
}
