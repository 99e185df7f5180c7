/**
 * The client side of the control socket, used by the CLI and the extension's
 * pseudoterminal. Every request settles: with the worker's answer, with a
 * timeout, or with an error when the connection closes first.
 */
import { createConnection, Socket } from 'node:net';
import { Disposable, toDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { failure } from '../common/errors';
import { fsFailureWords } from '../common/fsErrors';
import { assertTextLength } from '../common/textLimit';
import { isTerminalState, JobRecord, LifecycleState } from '../store/schema';
import { readSuspensions, suspensionWords } from '../store/suspension';
import { decodeFrame, encodeFrame, LineDecoder, validateMessage } from './framing';
import {
  MAX_INPUT_CHARS,
  ClientMessage,
  ExitMessage,
  PROTOCOL_VERSION,
  ReadyMessage,
  ServerMessage,
  ServerMessageSchema,
  StoppedMessage,
  WaitingSignal,
} from './messages';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { checkSocketPath, socketDirProblem } from './runtimeDir';
import { MAX_SERVER_LINE_BYTES } from './messages';
import { inputPieces, viewerSize } from './viewerBounds';

export { MAX_SERVER_LINE_BYTES } from './messages';

export interface StopResult {
  state: LifecycleState;
  escalated: boolean;
  survivors: { pid: number; command: string }[];
  /** `worker`: the worker stopped it; `direct`: the worker was gone and its processes were signalled; `store`: it had not started (only the record changed); `none`: it had already ended. */
  via: 'worker' | 'direct' | 'store' | 'none';
  /** Processes of the agent that this stop ended itself (when the worker could not). */
  ended?: { pid: number; command: string }[];
}

export interface ConnectOptions {
  /** Total time to keep retrying the connection (the worker may still be starting). Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Default time a request waits for its answer. Default 10000 ms. */
  requestTimeoutMs?: number;
}

/** The part of the job store the client needs (JobStore satisfies it). */
export interface JobReader {
  read(id: string): Promise<JobRecord>;
}

interface PendingRequest {
  resolve: (msg: ServerMessage) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** A JSON line, or the text of a binary output frame. */
type Frame = { line: string } | { output: string };

const RETRY_MS = 50;

export class WorkerClient extends Disposable {
  private nextId = 1;
  private readonly pending = new Map<number | string, PendingRequest>();
  private closed = false;
  private closeReason: string | undefined;
  private token = '';
  /** The generation whose worker this connects to, when connected through the job's record. */
  generation: number | undefined;
  /**
   * Frames (JSON lines, binary output payloads) that arrived right after `ready`,
   * held for one turn of the event loop: the code awaiting attach() subscribes
   * to onDidOutput in a microtask, and output that came in the same read must
   * not be fired before that.
   */
  private deferred: Frame[] | undefined;

  private readonly _onDidOutput = this._register(new Emitter<string>());
  readonly onDidOutput: Event<string> = this._onDidOutput.event;
  /** A fresh screen: after attach, and again when the worker resyncs a viewer that fell behind. */
  private readonly _onDidReady = this._register(new Emitter<ReadyMessage>());
  readonly onDidReady: Event<ReadyMessage> = this._onDidReady.event;
  private readonly _onDidResize = this._register(new Emitter<{ cols: number; rows: number }>());
  readonly onDidResize: Event<{ cols: number; rows: number }> = this._onDidResize.event;
  private readonly _onDidExit = this._register(new Emitter<ExitMessage>());
  readonly onDidExit: Event<ExitMessage> = this._onDidExit.event;
  /** Errors that do not close the connection (e.g. a read-only viewer tried to type). */
  private readonly _onDidError = this._register(new Emitter<string>());
  readonly onDidError: Event<string> = this._onDidError.event;
  /**
   * `unsentInput`: characters of input still queued on this side when the connection was lost (a paste
   * cut by the worker's death): surely not sent, so the viewer says so (bug 204).
   */
  private readonly _onDidClose = this._register(new Emitter<{ reason?: string; unsentInput: number }>());
  readonly onDidClose: Event<{ reason?: string; unsentInput: number }> = this._onDidClose.event;
  /** Characters of `input` written to the socket and not yet handed to the OS. */
  private unsentInput = 0;

  private constructor(
    private readonly socket: Socket,
    private readonly requestTimeoutMs: number,
  ) {
    super();
    const onFrame = (frame: Frame) => (this.deferred ? this.deferred.push(frame) : this.onFrame(frame));
    const decoder = new LineDecoder(
      (line) => onFrame({ line }),
      (reason) => this.terminate(`the worker sent an invalid frame (${reason})`),
      MAX_SERVER_LINE_BYTES,
      (output) => onFrame({ output }),
    );
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
    socket.on('error', (err) => this.terminate(err.message));
    socket.on('close', () => {
      // Deferred lines (output, exit) are delivered before the close.
      if (this.deferred) setImmediate(() => this.terminate(this.closeReason));
      else this.terminate(this.closeReason);
    });
    this._register(
      toDisposable(() => {
        this.terminate('closed by the client');
        socket.destroy();
      }),
    );
  }

  /** Connects to the worker of a running job, retrying while it starts. */
  static async connect(store: JobReader, id: string, opts: ConnectOptions = {}): Promise<WorkerClient> {
    const deadline = Date.now() + (opts.connectTimeoutMs ?? 5000);
    let lastError = 'it did not start its control socket';
    for (;;) {
      const job = await store.read(id);
      if (isTerminalState(job.lifecycle.state)) {
        throw failure(`Agent ${id} is not running (${job.lifecycle.state}).`);
      }
      const exec = job.execution;
      if (exec) {
        // The store holds the socket's name to this execution's (agentClaims.ts); its folder must be a private one of this user's.
        const badDir = socketDirProblem(dirname(exec.socketPath));
        if (badDir) throw failure(`Will not connect to agent ${id}'s worker: ${badDir}.`);
        checkSocketPath(exec.socketPath); // said at once, not retried until the deadline
        // Its kernel still accepts the connection, and every request would wait out its timeout for nothing.
        const frozen = (await readSuspensions([job])).get(id)?.worker;
        if (frozen) throw failure(`The worker of agent ${id} cannot answer while it is ${suspensionWords({ worker: frozen, agent: [] })}.`);
        try {
          const client = await WorkerClient.connectToSocket(exec.socketPath, exec.socketToken, {
            ...opts,
            connectTimeoutMs: Math.max(0, deadline - Date.now()),
          });
          // Read with the socket's path: a viewer can tell a new generation (a retry) from a reconnect.
          client.generation = job.lifecycle.generation;
          return client;
        } catch (err) {
          lastError = (err as Error).message;
        }
      }
      if (Date.now() >= deadline) {
        throw failure(`Cannot reach the worker of agent ${id}: ${lastError.replace(/\.$/, '')}.`);
      }
      await sleep(RETRY_MS * 2);
    }
  }

  /** Connects to a socket path, retrying ENOENT/ECONNREFUSED until the timeout. */
  static async connectToSocket(path: string, token: string, opts: ConnectOptions = {}): Promise<WorkerClient> {
    const deadline = Date.now() + (opts.connectTimeoutMs ?? 5000);
    checkSocketPath(path); // Node would cut it and say *no socket is there*, or reach another socket (bug 175)
    for (;;) {
      try {
        const socket = await openSocket(path);
        const client = new WorkerClient(socket, opts.requestTimeoutMs ?? 10_000);
        client.token = token;
        return client;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const retryable = code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EAGAIN';
        if (!retryable || Date.now() + RETRY_MS > deadline) {
          throw failure(`Cannot connect to ${path}: ${connectFailureWords(err)}.`);
        }
        await sleep(RETRY_MS);
      }
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Becomes a viewer: resolves with the current screen; output follows on onDidOutput. */
  async attach(opts: { cols: number; rows: number; readOnly: boolean }): Promise<ReadyMessage> {
    const answer = await this.request('ready', {
      type: 'attach',
      version: PROTOCOL_VERSION,
      token: this.token,
      ...viewerSize(opts.cols, opts.rows),
      readOnly: opts.readOnly,
      binaryOutput: true,
    });
    return answer as ReadyMessage;
  }

  /** Authenticates a connection that sends requests but does not view. */
  async hello(): Promise<{ state: LifecycleState; role: 'control' | 'agent' }> {
    const answer = await this.request('welcome', { type: 'hello', version: PROTOCOL_VERSION, token: this.token });
    if (answer.type !== 'welcome') throw failure('The worker answered hello unexpectedly.');
    return { state: answer.state, role: answer.role };
  }

  /** Any length: a paste longer than one frame goes as several, in order (the socket queues them). */
  input(data: string): void {
    for (const piece of inputPieces(data)) {
      if (this.closed) return;
      this.unsentInput += piece.length;
      // A write that failed (the socket destroyed under it) stays counted: it was not sent.
      this.socket.write(encodeFrame({ type: 'input', data: piece }), (err) => err || (this.unsentInput -= piece.length));
    }
  }

  /** Any size: one outside the protocol's bounds is sent as the nearest it carries. */
  resize(cols: number, rows: number): void {
    this.post({ type: 'resize', ...viewerSize(cols, rows) });
  }

  /** Asks for a fresh screen: it arrives on onDidReady (`resync: true`), output continues after it. */
  refresh(): void {
    this.post({ type: 'refresh' });
  }

  detach(): void {
    this.post({ type: 'detach' });
    this.socket.end();
  }

  async send(text: string): Promise<void> {
    assertTextLength(text, MAX_INPUT_CHARS, 'text');
    const id = this.nextId++;
    await this.request(id, { type: 'send', id, text });
  }

  async signal(state: WaitingSignal): Promise<void> {
    const id = this.nextId++;
    await this.request(id, { type: 'signal', id, state });
  }

  /** Resolves once the worker reports the stop durable; allow for the grace period in `timeoutMs`. */
  async stop(opts: { force: boolean; timeoutMs?: number }): Promise<StopResult> {
    const id = this.nextId++;
    const answer = (await this.request(id, { type: 'stop', id, force: opts.force }, opts.timeoutMs)) as StoppedMessage;
    return { state: answer.state, escalated: answer.escalated, survivors: answer.survivors, via: 'worker' };
  }

  private post(message: ClientMessage): void {
    if (this.closed) return;
    this.socket.write(encodeFrame(message));
  }

  private request(key: number | string, message: ClientMessage, timeoutMs = this.requestTimeoutMs): Promise<ServerMessage> {
    if (this.closed) return Promise.reject(failure(`The worker connection is closed${this.reasonSuffix()}.`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(failure(`The worker did not answer within ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      this.pending.set(key, { resolve, reject, timer });
      this.socket.write(encodeFrame(message));
    });
  }

  private settle(key: number | string, message: ServerMessage): boolean {
    const p = this.pending.get(key);
    if (!p) return false;
    this.pending.delete(key);
    clearTimeout(p.timer);
    if (message.type === 'error') p.reject(failure(message.message));
    else p.resolve(message);
    return true;
  }

  private onFrame(frame: Frame): void {
    // A binary frame's text is validated as the `output` message it stands for.
    const decoded = 'line' in frame ? decodeFrame(frame.line, ServerMessageSchema) : validateMessage({ type: 'output', data: frame.output }, ServerMessageSchema);
    if (!decoded.ok) {
      this.terminate(`the worker sent an invalid frame (${decoded.reason})`);
      return;
    }
    const msg = decoded.message;
    switch (msg.type) {
      case 'output':
        this._onDidOutput.fire(msg.data);
        return;
      case 'ready':
        if (!this.settle('ready', msg)) this._onDidReady.fire(msg);
        this.deferLines();
        return;
      case 'welcome':
        this.settle('welcome', msg);
        return;
      case 'size':
        this._onDidResize.fire({ cols: msg.cols, rows: msg.rows });
        return;
      case 'ack':
      case 'stopped':
        this.settle(msg.id, msg);
        return;
      case 'exit':
        this._onDidExit.fire(msg);
        return;
      case 'error':
        if (msg.fatal) {
          this.closeReason = msg.message.replace(/\.$/, '');
          // Fail the handshake request with the worker's reason.
          for (const key of ['ready', 'welcome']) if (this.settle(key, msg)) break;
          return;
        }
        if (msg.id === undefined || !this.settle(msg.id, msg)) this._onDidError.fire(msg.message);
        return;
    }
  }

  private deferLines(): void {
    if (this.deferred) return;
    this.deferred = [];
    setImmediate(() => {
      const frames = this.deferred ?? [];
      this.deferred = undefined;
      for (let i = 0; i < frames.length; i++) {
        if (this.deferred) {
          // A resync `ready` among them defers the rest again.
          (this.deferred as Frame[]).push(...frames.slice(i));
          return;
        }
        if (!this.closed) this.onFrame(frames[i]);
      }
    });
  }

  private reasonSuffix(): string {
    return this.closeReason ? `: ${this.closeReason}` : '';
  }

  private terminate(reason: string | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason ??= reason;
    const err = failure(`The worker connection closed${this.reasonSuffix()}.`);
    for (const [key, p] of [...this.pending]) {
      this.pending.delete(key);
      clearTimeout(p.timer);
      p.reject(err);
    }
    this._onDidClose.fire({ reason: this.closeReason, unsentInput: this.unsentInput });
    this.socket.destroy();
  }
}

function openSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const onError = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/**
 * Why a connect failed, in words: Node's "connect ENOENT /path" is errno text. A hook of an agent
 * whose worker has gone (cleaned up, killed) meets the first two.
 */
function connectFailureWords(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no socket is there (its worker has exited)';
    case 'ECONNREFUSED':
      return 'nothing listens on it (its worker has exited)';
    default:
      return fsFailureWords(err);
  }
}
