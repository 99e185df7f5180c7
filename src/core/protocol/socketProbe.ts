/**
 * Whether a process may serve a Unix socket file: asked by connecting. Only a refused connection
 * (ECONNREFUSED) proves nothing listens there; every other answer may be a live process.
 */
import { createConnection } from 'node:net';

/**
 * `dead`: nothing listens (ECONNREFUSED), the only answer that proves it. `missing`: gone meanwhile.
 * `alive`: anything else: accepted (closed at once), or a full backlog (EAGAIN) of a process slow to
 * accept or suspended, or refused for permissions: a process may serve it.
 */
export type SocketProbe = 'dead' | 'missing' | 'alive';

export function probeSocket(path: string): Promise<SocketProbe> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve('alive');
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      probe.destroy();
      resolve(err.code === 'ECONNREFUSED' ? 'dead' : err.code === 'ENOENT' ? 'missing' : 'alive');
    });
  });
}
