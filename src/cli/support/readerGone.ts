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
 * - A socket (Node's `spawn` gives its children socket pairs): the reader's close is an end of file
 *   on the socket, read on stdout's own handle. A socket that is stdin too is left alone: its bytes
 *   are the person's input.
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
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFIFO() && process.platform === 'linux') return watchPipe(fd, gone);
    if (stat.isSocket() && !sameAsStdin(stat)) return watchSocket(stream, gone);
  } catch {
    // An output Node cannot stat or watch: its next write tells.
  }
  return NONE;
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
  // A TCP handle is the one libuv opens as readable whatever the descriptor's mode (a pipe handle
  // would refuse to read a write-only end); the read it waits for is what the error condition wakes.
  // No public API polls a descriptor: `process.binding` is the internal one, allowed and stable here.
  const { TCP, constants } = (process as unknown as { binding(name: string): { TCP: new (type: number) => StreamHandle; constants: { SOCKET: number } } }).binding('tcp_wrap');
  const handle = new TCP(constants.SOCKET);
  if (handle.open(second) !== 0) {
    fs.closeSync(second);
    return NONE;
  }
  // `handle` is an option net.Socket takes (how Node wraps the handles it makes) but does not declare.
  const socket = new net.Socket({ handle, readable: true, writable: false } as net.SocketConstructorOpts);
  socket.on('error', gone);
  socket.on('end', gone);
  socket.on('data', () => undefined);
  socket.unref();
  return { dispose: () => socket.destroy() };
}

function watchSocket(stream: NodeJS.WritableStream, gone: () => void): ReaderWatch {
  const handle = (stream as { _handle?: Partial<StreamHandle> })._handle;
  if (!handle || typeof handle.readStart !== 'function' || typeof handle.readStop !== 'function') return NONE;
  const before = handle.onread;
  const wasRef = handle.hasRef?.() ?? true;
  // Node calls onread with the bytes read, or with none for an end of file or an error. A reader sends
  // nothing on its way: bytes are dropped.
  handle.onread = (bytes: unknown) => {
    if (bytes === undefined) gone();
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
