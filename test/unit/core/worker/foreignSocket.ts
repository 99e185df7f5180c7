/**
 * Another process's socket at a worker's socket path, for the tests that the worker never takes it:
 * one that listens and never accepts (python), and one that accepts but is suspended (SIGSTOP), each
 * with a tiny backlog, so that a few connections fill it and the next is refused with EAGAIN.
 */
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { lstatSync, renameSync } from 'node:fs';
import { createConnection } from 'node:net';

export interface ForeignSocket {
  readonly path: string;
  readonly ino: number;
  readonly child: ChildProcessWithoutNullStreams;
  /** Whether the file at the path is still this process's socket. */
  isThere(): boolean;
  /** How many connections it took; for the one that never accepts, accepted only now. */
  connectionsSoFar(): Promise<number>;
  kill(): void;
}

/** Listens with `listen(backlog)` and accepts nothing until asked how many connections wait. */
const NEVER_ACCEPTS = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(int(sys.argv[2]))
print('up', flush=True)
for line in sys.stdin:
    s.setblocking(False)
    n = 0
    while True:
        try:
            s.accept()
            n += 1
        except BlockingIOError:
            break
    print(n, flush=True)
`;

/** Accepts (and counts) every connection, saying "foreign" on it (a probe closed already: EPIPE); suspended by the test. */
const ACCEPTS = `
let n = 0;
const server = require('net').createServer((s) => { n++; s.on('error', () => {}); s.end('foreign\\n'); });
server.listen({ path: process.argv[1], backlog: Number(process.argv[2]) }, () => console.log('up'));
process.stdin.on('data', () => console.log(String(n)));
`;

/** Bound beside `path`, then renamed over whatever is there: the path is never missing for the worker to take. */
export async function foreignSocket(path: string, kind: 'never accepts' | 'accepts', backlog: number): Promise<ForeignSocket> {
  const beside = `${path}.foreign`;
  const child =
    kind === 'never accepts' ? spawn('python3', ['-c', NEVER_ACCEPTS, beside, String(backlog)]) : spawn(process.execPath, ['-e', ACCEPTS, beside, String(backlog)]);
  await nextLine(child);
  renameSync(beside, path);
  const ino = lstatSync(path).ino;
  return {
    path,
    ino,
    child,
    isThere: () => {
      try {
        return lstatSync(path).ino === ino;
      } catch {
        return false;
      }
    },
    connectionsSoFar: async () => {
      child.stdin.write('count\n');
      return Number(await nextLine(child));
    },
    kill: () => child.kill('SIGKILL'),
  };
}

function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\n')) return;
      child.stdout.off('data', onData);
      resolve(got.trim());
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the foreign socket's process exited (${code})`)));
  });
}

/** What a connection to `path` reads until it closes. */
export function readAll(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.once('error', reject);
    s.once('close', () => resolve(got));
  });
}
