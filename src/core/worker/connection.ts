/**
 * One client of the control socket. The first frame authenticates (`attach`
 * for a viewer, `hello` for a control or agent connection); any bad frame
 * closes this connection only.
 *
 * A viewer's output is written only while its socket keeps up: past the
 * high-water mark it stops receiving output ("lagging"), and once its socket
 * drains it gets a fresh screen (`ready` with `resync: true`) and continues
 * from there. A viewer that stays stuck is dropped. The agent never waits.
 */
import type { Socket } from 'node:net';
import { Disposable, disposableTimeout, IDisposable, MutableDisposable, toDisposable } from '../common/lifecycle';
import { Emitter, Event } from '../common/event';
import { describeError } from '../common/errors';
import { decodeFrame, encodeFrame, LineDecoder } from '../protocol/framing';
import type { OutputBatch } from './outputBatch';
import { AttachMessage, ClientMessage, ClientMessageSchema, MAX_FIRST_LINE_BYTES, MAX_LINE_BYTES, PROTOCOL_VERSION, ServerMessage } from '../protocol/messages';
import type { AgentSession } from './session';
import type { ConnectionLimits } from './connectionLimits';
import { endAfterWrites } from './endAfterWrites';

export type Role = 'viewer' | 'control' | 'agent';
type StreamState = 'syncing' | 'live' | 'lagging';
/** Answers waiting in a socket beyond which the worker stops reading the client's frames. */
const MAX_UNSENT_REPLIES = 256;
/** Output frames up to this size are copied into one buffer and written at once. */
const SMALL_FRAME_BYTES = 4096;

export interface ConnectionHost {
  readonly session: AgentSession;
  readonly limits: ConnectionLimits;
  /** Returns the role the token grants, or undefined. */
  authenticate(token: string): 'control' | 'agent' | undefined;
  /** Sends any batched output before a snapshot marker is taken. */
  flushOutput(): void;
  /** A writable viewer typed or resized: it now decides the size. */
  markActive(conn: Connection, cols: number, rows: number): void;
  /** A viewer's input ended (its connection stays for its answers): it decides the size no more. */
  detached(conn: Connection): void;
  log(message: string): void;
}

export class Connection extends Disposable {
  private role: Role | undefined;
  private readOnly = true;
  /** The viewer asked for binary output frames. */
  private binaryOutput = false;
  private stream: StreamState = 'syncing';
  private pending: OutputBatch[] = [];
  private pendingBytes = 0;
  private resyncAgain = false;
  /** The screen being sent while `syncing`: a `refresh` then is answered once it (taken again) has gone (bug 203). */
  private syncing: Promise<void> = Promise.resolve();
  private stuckTimer: IDisposable | undefined;
  private closed = false;
  /** Set while the agent's input is backlogged: this socket waits for it to drain. */
  private readonly inputHeld = this._register(new MutableDisposable<IDisposable>());
  /** Why this socket is not read now: it is read again once no reason is left. */
  private readonly readingHolds = new Set<'input' | 'replies'>();
  /** Frames other than output written to the socket and not yet gone to the client. */
  private unsentReplies = 0;
  /** Requests (`send`, `stop`) carried out and not answered yet. */
  private unanswered = 0;
  /** The client is done (its input ended, a `detach`, a bad frame): nothing more is read; it closes once answered. */
  private done = false;
  /** The frame said last, after every answer owed (a bad frame's fatal `error`). */
  private lastWords: ServerMessage | undefined;
  private readonly decoder: LineDecoder;
  cols = 80;
  rows = 24;

  private readonly _onDidClose = this._register(new Emitter<void>());
  readonly onDidClose: Event<void> = this._onDidClose.event;

  constructor(
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
  ) {
    super();
    // Until it authenticates, a connection may send no longer a line than a first frame can be (bug 163).
    const decoder = (this.decoder = new LineDecoder((line) => this.onLine(line), (reason) => this.fail(reason), MAX_FIRST_LINE_BYTES, undefined, 'first frame'));
    const onData = (chunk: Buffer) => decoder.push(chunk);
    const onDrain = () => this.onDrain();
    const onEnd = () => this.close();
    const onInputEnd = () => this.finishRequests(); // it sends no more (`socat`, `nc -N`): as a `detach` (bug 165)
    const onError = () => this.close();
    socket.on('data', onData);
    socket.on('drain', onDrain);
    socket.on('end', onInputEnd);
    socket.on('close', onEnd);
    socket.on('error', onError);
    this._register(
      toDisposable(() => {
        socket.off('data', onData);
        socket.off('drain', onDrain);
        socket.off('end', onInputEnd);
        socket.off('close', onEnd);
        socket.off('error', onError);
        socket.on('error', () => undefined); // late errors after destroy must not crash the worker
        socket.destroy();
      }),
    );
    this._register(
      disposableTimeout(() => {
        if (!this.role) this.fail('no attach or hello frame in time');
      }, host.limits.handshakeMs),
    );
    this._register(toDisposable(() => this.stuckTimer?.dispose()));
  }

  /** A viewer whose input ended is detached: only the answers it is due still go to it. */
  get isViewer(): boolean {
    return this.role === 'viewer' && !this.done;
  }

  get isWritableViewer(): boolean {
    return this.isViewer && !this.readOnly;
  }

  /** A batch of output, shared by all viewers. */
  deliverOutput(batch: OutputBatch): void {
    if (!this.isViewer || this.closed) return;
    switch (this.stream) {
      case 'syncing':
        this.pending.push(batch);
        this.pendingBytes += batch.bytes;
        if (this.pendingBytes > this.host.limits.highWaterBytes) {
          // Too much arrived while the screen was being prepared: take another snapshot after this one.
          this.pending = [];
          this.pendingBytes = 0;
          this.resyncAgain = true;
        }
        return;
      case 'live':
        return this.socket.writableLength > this.host.limits.highWaterBytes ? this.startLagging() : this.writeOutput(batch);
      case 'lagging':
        return;
    }
  }

  private writeOutput(batch: OutputBatch): void {
    if (!this.binaryOutput) return this.write(batch.jsonFrame());
    // A keystroke echo: one small copy and the plain write path is quicker than a writev.
    if (batch.bytes <= SMALL_FRAME_BYTES) return this.write(Buffer.concat([batch.header, ...batch.chunks]));
    // Corked: one writev for the header and every chunk.
    this.socket.cork();
    this.write(batch.header);
    for (const c of batch.chunks) this.write(c);
    this.socket.uncork();
  }

  private write(chunk: string | Buffer, done?: () => void): void {
    this.socket.write(chunk, done);
  }

  /**
   * A frame other than output. Most answer a frame the client sent (`ack`, `error`, `ready` for a
   * `refresh`): a client that sends and never reads would have them pile up in the worker's memory
   * without end (measured: 117 MB for 600,000 `signal` frames, which the agent's own token may
   * send), so past a few hundred unsent (each small write costs far more than its bytes) or the
   * high-water mark, its socket is read no further until they have gone out, and it holds what it
   * sends itself. Output does not count: it has its own limit (lagging).
   */
  sendMessage(message: ServerMessage): void {
    if (this.closed) return;
    this.unsentReplies++;
    this.write(encodeFrame(message), () => {
      // Called in order once each frame has gone to the client (or the socket failed).
      if (--this.unsentReplies === 0) this.releaseReading('replies');
    });
    if (this.unsentReplies > MAX_UNSENT_REPLIES || this.socket.writableLength > this.host.limits.highWaterBytes) this.holdReading('replies');
  }

  /** Tells a viewer the agent ended, after the final state is durable. */
  notifyExit(message: ServerMessage): void {
    if (this.role === 'viewer' || this.role === 'control') this.sendMessage(message);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this._onDidClose.fire();
    this.dispose();
  }

  /**
   * The agent reads its input slower than it comes: this socket is read no further until the
   * backlog drains, so the viewer's side holds what it sends (as a terminal does for a program that
   * does not read) and the worker's memory stays bounded.
   */
  private holdReadingWhileBacklogged(): void {
    if (this.inputHeld.value || !this.host.session.inputBacklogged) return;
    this.inputHeld.value = this.host.session.onDidDrainInput(() => {
      this.inputHeld.clear();
      this.releaseReading('input');
    });
    this.holdReading('input');
  }

  private holdReading(reason: 'input' | 'replies'): void {
    this.readingHolds.add(reason);
    this.socket.pause();
  }

  private releaseReading(reason: 'input' | 'replies'): void {
    if (!this.readingHolds.delete(reason)) return;
    if (this.readingHolds.size === 0 && !this.closed && !this.done) this.socket.resume();
  }

  /** Closes after the answers to the requests carried out before it, the fatal `error` last (bug 173: a `send`'s `ack` was lost). */
  private fail(reason: string): void {
    if (this.closed || this.done) return;
    this.host.log(`connection closed: ${reason}`);
    this.finishRequests({ type: 'error', message: `Closing the connection: ${reason}.`, fatal: true });
  }

  /**
   * The client sends no more (its input ended, a `detach`) or may not (a bad frame): nothing more is read, a viewer is
   * detached at once (no output, no size), and it closes once its `send`s and `stop`s are answered (bugs 165, 173).
   */
  private finishRequests(lastWords?: ServerMessage): void {
    if (this.closed || this.done) return;
    this.done = true;
    this.lastWords = lastWords;
    this.socket.pause(); // what it sends now is read by no one: it stays on its side
    if (this.role === 'viewer') this.host.detached(this);
    this.closeIfAnswered();
  }

  private closeIfAnswered(): void {
    if (this.closed || !this.done || this.unanswered > 0) return;
    if (this.lastWords) this.sendMessage(this.lastWords);
    // A destroy drops an answer still queued (behind a viewer's unread output); a viewer owed nothing closes at once.
    if (this.lastWords || this.role !== 'viewer' || this.unsentReplies > 0) this.closeAfterWrites();
    else this.close();
  }

  /** Closes once what was written has gone out, or the client has read nothing for `stuckMs` (endAfterWrites.ts). */
  private closeAfterWrites(): void {
    if (this.closed) return;
    this.closed = true;
    this._onDidClose.fire();
    this._register(endAfterWrites(this.socket, this.host.limits.stuckMs, () => this.dispose()));
  }

  private onLine(line: string): void {
    if (this.closed || this.done) return;
    const decoded = decodeFrame(line, ClientMessageSchema);
    if (!decoded.ok) return this.fail(decoded.reason);
    try {
      this.handle(decoded.message);
    } catch (err) {
      this.fail(describeError(err, 300));
    }
  }

  private handle(msg: ClientMessage): void {
    if (!this.role) {
      if (msg.type !== 'attach' && msg.type !== 'hello') return this.fail('the first frame must be attach or hello');
      const granted = this.host.authenticate(msg.token);
      if (!granted) return this.fail('wrong token');
      // The agent's own token may only signal (a frame of a few dozen bytes): it never holds a megabyte either.
      this.decoder.setLineLimit(granted === 'agent' ? MAX_FIRST_LINE_BYTES : MAX_LINE_BYTES, 'frame');
      if (msg.type === 'hello') {
        this.role = granted;
        this.sendMessage({ type: 'welcome', version: PROTOCOL_VERSION, state: this.host.session.state, role: granted });
        return;
      }
      if (granted !== 'control') return this.fail('this token may only signal');
      return this.startViewing(msg);
    }
    switch (msg.type) {
      case 'attach':
      case 'hello':
        return this.fail('already authenticated');
      case 'input':
        if (!this.mayWrite()) return this.refuse(undefined, 'This viewer is read-only and cannot type.');
        this.host.markActive(this, this.cols, this.rows);
        this.host.session.input(msg.data);
        this.holdReadingWhileBacklogged();
        return;
      case 'resize':
        if (!this.mayWrite()) return this.refuse(undefined, 'This viewer is read-only and cannot resize.');
        this.cols = msg.cols;
        this.rows = msg.rows;
        this.host.markActive(this, msg.cols, msg.rows);
        return;
      case 'detach':
        return this.finishRequests();
      case 'refresh':
        if (this.role !== 'viewer') return this.refuse(undefined, 'Only a viewer can ask for a fresh screen.');
        // A snapshot under way is taken again once it is done (two at once would interleave their output); owed either
        // way: a lag resync's screen is not owed by itself, and a detach right after the refresh lost it (bug 203).
        if (this.stream === 'syncing') this.resyncAgain = true;
        return this.answerLater(this.stream === 'syncing' ? this.syncing : this.sync(true));
      case 'send':
        if (!this.mayWrite()) return this.refuse(msg.id, 'This connection is read-only and cannot send.');
        this.answerLater(this.host.session.send(msg.text).then(
          () => this.sendMessage({ type: 'ack', id: msg.id }),
          (err) => this.refuse(msg.id, describeError(err, 500)),
        ));
        this.holdReadingWhileBacklogged();
        return;
      case 'signal':
        this.host.session.signal(msg.state);
        this.sendMessage({ type: 'ack', id: msg.id });
        return;
      case 'stop':
        if (!this.mayWrite()) return this.refuse(msg.id, 'This connection is read-only and cannot stop the agent.');
        this.answerLater(this.host.session.stop(msg.force).then(
          (outcome) => this.sendMessage({ type: 'stopped', id: msg.id, ...outcome }),
          (err) => this.refuse(msg.id, `Stopping failed: ${describeError(err, 500)}`),
        ));
        return;
    }
  }

  /** A request answered once `answered` settles: the connection stays open for the answer. */
  private answerLater(answered: Promise<void>): void {
    this.unanswered++;
    void answered.finally(() => {
      if (--this.unanswered === 0) this.closeIfAnswered();
    });
  }

  /** Agent connections (the token in the agent's environment) may only signal. */
  private mayWrite(): boolean {
    if (this.role === 'control') return true;
    return this.role === 'viewer' && !this.readOnly;
  }

  private refuse(id: number | undefined, message: string): void {
    this.sendMessage({ type: 'error', id, message, fatal: false });
  }

  private startViewing(msg: AttachMessage): void {
    this.role = 'viewer';
    this.readOnly = msg.readOnly;
    this.binaryOutput = msg.binaryOutput === true;
    this.cols = msg.cols;
    this.rows = msg.rows;
    if (!this.readOnly) this.host.markActive(this, msg.cols, msg.rows);
    // The screen answers the attach: a viewer that half-closes or detaches right after it still gets it (bug 203).
    this.answerLater(this.sync(false));
  }

  /** Sends a fresh screen, then the output that followed it. */
  private sync(resync: boolean): Promise<void> {
    this.host.flushOutput();
    this.stream = 'syncing';
    this.pending = [];
    this.pendingBytes = 0;
    this.resyncAgain = false;
    return (this.syncing = this.host.session.snapshot().then(
      (snap) => {
        if (this.closed) return;
        if (this.resyncAgain) return this.sync(resync);
        const session = this.host.session;
        this.sendMessage({
          type: 'ready',
          version: PROTOCOL_VERSION,
          screen: snap.screen,
          cols: snap.cols,
          rows: snap.rows,
          state: session.state,
          readOnly: this.readOnly,
          resync,
          exit: session.exit,
        });
        const tail = this.pending;
        this.pending = [];
        this.pendingBytes = 0;
        this.stream = 'live';
        for (const batch of tail) this.writeOutput(batch);
      },
      (err) => this.fail(`could not capture the screen: ${describeError(err, 200)}`),
    ));
  }

  private startLagging(): void {
    this.stream = 'lagging';
    this.host.log(`viewer fell behind (${this.socket.writableLength} bytes queued); output paused until it drains`);
    this.stuckTimer?.dispose();
    this.stuckTimer = disposableTimeout(() => {
      if (this.stream === 'lagging') this.fail('the viewer stopped reading');
    }, this.host.limits.stuckMs);
  }

  private onDrain(): void {
    if (this.stream !== 'lagging' || this.closed) return;
    this.stuckTimer?.dispose();
    this.stuckTimer = undefined;
    void this.sync(true);
  }
}
