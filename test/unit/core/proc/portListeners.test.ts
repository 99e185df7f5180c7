/** Listeners on TCP ports found without binding (bug 183): who listens, and whose it is where that can be told. */
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { processBackend } from '../../../../src/core/proc/backend';
import { useProcessBackend } from './processBackend';

/** A child listening on `host`:`port` with PADDOCK_JOB_ID=`marker` (none when undefined), once it listens. */
async function server(host: string, port: number, marker: string | undefined): Promise<ChildProcess> {
  const env = { ...process.env };
  delete env.PADDOCK_JOB_ID;
  if (marker !== undefined) env.PADDOCK_JOB_ID = marker;
  const code = `require('net').createServer().listen(${port}, '${host}', () => console.log('up'))`;
  const child = spawn(process.execPath, ['-e', code], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child;
}

for (const backend of ['proc', 'portable'] as const) {
  describe(`portListeners (${backend})`, function () {
    this.timeout(30_000);
    useProcessBackend(backend);
    const children: ChildProcess[] = [];
    afterEach(async () => {
      for (const child of children.splice(0)) {
        child.kill('SIGKILL');
        if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
      }
    });

    it('finds listeners on IPv4 and IPv6 loopback, with their marker where the backend can tell, and none on a free port', async () => {
      children.push(await server('127.0.0.1', 45480, 'job-a'), await server('::1', 45481, undefined));
      const found = await processBackend().portListeners(new Set([45480, 45481, 45482]), 'PADDOCK_JOB_ID');
      assert.deepEqual([...found.keys()].sort(), [45480, 45481]);
      if (backend === 'proc') {
        assert.deepEqual(found.get(45480)?.owners, ['job-a']);
        assert.deepEqual(found.get(45481)?.owners, ['']);
      } else {
        assert.equal(found.get(45480)?.owners, undefined);
        assert.equal(found.get(45481)?.owners, undefined);
      }
    });

    it('finds a listener bound to one of this machine\'s other addresses alone, and to every address (bug 213)', async function () {
      const own = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && !i.internal && i.family === 'IPv4');
      if (!own) this.skip(); // no address but loopback here
      children.push(await server(own!.address, 45483, 'job-b'), await server('0.0.0.0', 45484, 'job-c'));
      const found = await processBackend().portListeners(new Set([45483, 45484, 45485]), 'PADDOCK_JOB_ID');
      assert.deepEqual([...found.keys()].sort(), [45483, 45484], `a listener on ${own!.address} was missed`);
      if (backend === 'proc') assert.deepEqual(found.get(45483)?.owners, ['job-b']);
    });
  });
}
