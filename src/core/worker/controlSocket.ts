/**
 * The worker's socket file at its path: made there (in place of a socket left by a killed worker,
 * never of one a process may serve), kept there (made again when it is removed or replaced from
 * under the worker) and removed at the end only if it is still the worker's own (socketFile.ts).
 * What comes in on it is the control server's (`accept`).
 */
import { chmodSync, lstatSync, Stats } from 'node:fs';
import { dirname } from 'node:path';
import { createServer, Server, Socket } from 'node:net';
import { Disposable, toDisposable } from '../common/lifecycle';
import { failure } from '../common/errors';
import { checkSocketPath, ensureRuntimeDir } from '../protocol/runtimeDir';
import { removeDeadAsides } from '../protocol/asideSockets';
import { FileId, fileIdOf, isSameFile } from '../protocol/fileIdentity';
import { asidePath, lstatIfThere, placeSocket, probeSocket, refusal, removeIfOwn } from './socketFile';

export interface ControlSocketOptions {
  accept: (socket: Socket) => void;
  log: (message: string) => void;
  /** How often the socket file is checked for having been removed from under the worker. */
  checkMs?: number;
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

export class ControlSocket extends Disposable {
  private server: Server;
  private socketPath: string | undefined;
  private socketCheck: NodeJS.Timeout | undefined;
  private relistening = false;
  /** The socket file this worker made (device and inode): what else is at its path is not it. */
  private ownSocket: FileId | undefined;
  /** A file at the path left alone: said once, and a socket there asked again only after `waitMs`. */
  private leftAlone: { id: FileId; what: string; askAgainAt: number; waitMs: number } | undefined;

  constructor(private readonly opts: ControlSocketOptions) {
    super();
    this.server = this.createServer();
    this._register(
      toDisposable(() => {
        clearInterval(this.socketCheck);
        // Bound aside, its close removes no file at the path; only the worker's own file goes.
        this.server.close();
        if (this.socketPath) removeIfOwn(this.socketPath, this.ownSocket);
      }),
    );
  }

  private createServer(): Server {
    // Half-open: a client that shuts down writing after its request still gets the answer (connection.ts).
    const server = createServer({ allowHalfOpen: true }, (socket) => this.opts.accept(socket));
    server.on('error', (err) => this.opts.log(`control socket error: ${err.message}`));
    return server;
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
    this.sweepAsides(dirname(path));
    if (!this.socketCheck) {
      this.socketCheck = setInterval(() => void this.keepSocket(), this.opts.checkMs ?? SOCKET_CHECK_MS);
      this.socketCheck.unref?.();
    }
  }

  /**
   * Workers killed between binding aside and linking into place left their aside files in the
   * directory, which nothing else names: removed once their owners are provably gone (asideSockets.ts).
   * In the background: a worker's start does not wait on probes of others' files.
   */
  private sweepAsides(dir: string): void {
    removeDeadAsides(dir).then(
      (gone) => {
        if (gone.length > 0) this.opts.log(`removed ${gone.length} socket file(s) left by workers killed while making theirs: ${gone.join(', ')}`);
      },
      () => undefined,
    );
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
