/**
 * Whether the reader of an output (stdout, stderr) went away while a command that streams has nothing
 * to write: `paddock logs ID --follow | head -1` on a quiet agent must end when `head` does, not at
 * the agent's next line (which may never come). A write says so (EPIPE), but only once there is one
 * to make; this asks the kernel without writing.
 *
 * - A pipe (`| head`): its write end reports an error condition (POLLERR) once no reader is left.
 *   Node offers no poll of its own, so a second descriptor of the same write end (opened through
 *   /proc, Linux only) is watched by a stream handle that can wait to read: the error wakes it, and
 *   the read that follows fails (EBADF on a write-only end), which is the sign. The extra descriptor
 *   is a writer, not a reader: it never keeps a dead pipe alive, and it closes on exec.
 * - A socket (Node's `spawn` gives its children socket pairs): an end of file read on stdout's own
 *   handle is no proof: a reader that half-closes its sending side (systemd's journal stream, whose
 *   service side is shut for reading; `systemd-cat`; socat) gives one while it reads on. It is only a
 *   cue to ask with a write of no bytes, which fails (EPIPE) only once the other end is closed or
 *   will read no more, never for a half-close, on a Unix socket. On TCP (`>/dev/tcp/…`) that write
 *   succeeds whether the reader closed or half-closed, so a closed TCP reader is heard only at the
 *   next write, as before: telling the two apart there takes sending bytes, which would reach the
 *   reader. A socket that is stdin too is left alone: its bytes are the person's input.
 * - Whatever the output, a write that fails with EPIPE says it too (stderr's errors are otherwise
 *   dropped, main.ts: `coordinate` would log on into nothing).
 * - A terminal closing sends SIGHUP; a file or /dev/null has no reader to lose: nothing to watch.
 *
 * Anything unexpected leaves the output unwatched: the next write then says it, as before.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

export interface ReaderWatch {
  dispose(): void;
}

const NONE: ReaderWatch = { dispose: () => undefined };

/** Calls `onGone` once when nobody reads `stream` any more (a pipe or socket only). */
export function watchReaderGone(stream: NodeJS.WritableStream, onGone: () => void): ReaderWatch {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== 'number' || (stream as { isTTY?: boolean }).isTTY === true) return NONE;
  let once = false;
  const gone = () => {
    if (once) return;
    once = true;
    onGone();
  };
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') gone();
  };
  stream.on('error', onError);
  let watch = NONE;
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFIFO() && process.platform === 'linux') watch = watchPipe(fd, gone);
    else if (stat.isSocket() && !sameAsStdin(stat)) watch = watchSocket(stream, fd, gone);
  } catch {
    // An output Node cannot stat or watch: its next write tells.
  }
  return {
    dispose: () => {
      stream.removeListener('error', onError);
      watch.dispose();
    },
  };
}

function sameAsStdin(stat: fs.Stats): boolean {
  try {
    const input = fs.fstatSync(0);
    return input.dev === stat.dev && input.ino === stat.ino;
  } catch {
    return false;
  }
}

interface StreamHandle {
  open(fd: number): number;
  readStart(): number;
  readStop(): number;
  onread: unknown;
  ref(): void;
  unref(): void;
  hasRef?(): boolean;
}

function watchPipe(fd: number, gone: () => void): ReaderWatch {
  let second: number;
  try {
    // Non-blocking: a named FIFO with no reader left fails at once (ENXIO) instead of waiting for one.
    second = fs.openSync(`/proc/self/fd/${fd}`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') gone();
    return NONE;
  }
  try {
    const handle = new (tcpWrap().TCP)(tcpWrap().constants.SOCKET);
    if (handle.open(second) !== 0) throw new Error('not opened');
    // `handle` is an option net.Socket takes (how Node wraps the handles it makes) but does not declare.
    const socket = new net.Socket({ handle, readable: true, writable: false } as net.SocketConstructorOpts);
    socket.on('error', gone);
    socket.on('end', gone);
    socket.on('data', () => undefined);
    socket.unref();
    return { dispose: () => socket.destroy() };
  } catch {
    // Whatever failed, the second descriptor must not outlive the watch: the next write tells instead.
    fs.closeSync(second);
    return NONE;
  }
}

interface TcpWrap {
  TCP: new (type: number) => StreamHandle;
  constants: { SOCKET: number };
}

let tcpWrapBinding: TcpWrap | undefined;

/**
 * A TCP handle is the one libuv opens as readable whatever the descriptor's mode (a pipe handle would
 * refuse to read a write-only end); the read it waits for is what the error condition wakes. No public
 * API polls a descriptor: `process.binding` is the internal one, allowed and stable here. Under
 * `--pending-deprecation` calling it warns (DEP0111), and with `--throw-deprecation` that warning ended
 * the CLI with a stack trace: the warning is Node's business, not the person's, so it is silenced for
 * this one call. `emitWarning` reads `noDeprecation` as it is called (it throws on a later tick, but
 * decides now), so setting it back at once is enough.
 */
function tcpWrap(): TcpWrap {
  if (tcpWrapBinding) return tcpWrapBinding;
  const before = process.noDeprecation;
  process.noDeprecation = true;
  try {
    tcpWrapBinding = (process as unknown as { binding(name: string): TcpWrap }).binding('tcp_wrap');
  } finally {
    process.noDeprecation = before;
  }
  return tcpWrapBinding;
}

function watchSocket(stream: NodeJS.WritableStream, fd: number, gone: () => void): ReaderWatch {
  const handle = (stream as { _handle?: Partial<StreamHandle> })._handle;
  if (!handle || typeof handle.readStart !== 'function' || typeof handle.readStop !== 'function') return NONE;
  const before = handle.onread;
  const wasRef = handle.hasRef?.() ?? true;
  // Node calls onread with the bytes read, or with none for an end of file or an error. A reader sends
  // nothing on its way: bytes are dropped. An end of file only asks: a write of no bytes sends nothing
  // on a stream socket, and fails only when nobody will read (the other end closed or shut for reading).
  handle.onread = (bytes: unknown) => {
    if (bytes === undefined && nobodyReads(fd)) gone();
  };
  if (handle.readStart() !== 0) {
    handle.onread = before;
    return NONE;
  }
  // The watch must not keep the command running; its writes keep the handle active while they last.
  handle.unref?.();
  return {
    dispose: () => {
      handle.readStop!();
      handle.onread = before;
      if (wasRef) handle.ref?.();
    },
  };
}

function nobodyReads(fd: number): boolean {
  try {
    fs.writeSync(fd, Buffer.alloc(0));
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EPIPE' || code === 'ECONNRESET';
  }
}
