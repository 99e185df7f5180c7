/**
 * The sentence when no block of ports is left says what would help (bug 183): cleaning up ended
 * agents only when they hold ports whose release leaves a block; else widening the range.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { portShortageWords } from '../../../../src/core/coordinator/portShortage';
import { CoordinatorSandbox, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: no port block left', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  async function refusal(start: Promise<unknown>): Promise<string> {
    const err = await start.then(
      () => assert.fail('the start was not refused'),
      (e: Error) => e,
    );
    // The start's own words come first (*Agent X failed to start: …*); the port sentence is what is judged.
    return err.message.replace(/^Agent \S+ failed to start: /, '');
  }

  it('a range smaller than one block says to widen it, not to clean up', async () => {
    const c = sb.coordinator({ worktree: { ports: 3, portRange: '45400-45401' } });
    assert.equal(
      await refusal(c.start({ repo: sb.repo, command: ['true'] })),
      'No block of 3 free ports is left in 45400-45401: the range has 2 ports and each agent asks for 3; widen paddock.worktree.portRange.',
    );
  });

  it('agents still running hold the range: widen it, since no cleanup would free a port', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45410-45413' } });
    await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    assert.equal(
      await refusal(c.start({ repo: sb.repo, command: ['true'] })),
      'No block of 2 free ports is left in 45410-45413 (agents still running or queued hold 4 of its ports): widen paddock.worktree.portRange.',
    );
  });

  it('an ended agent that holds a block is named, as the one to clean up', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45420-45423' } });
    const ended = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(ended.id);
    await c.start({ repo: sb.repo, command: ['sleep', '30'] });
    assert.equal(
      await refusal(c.start({ repo: sb.repo, command: ['true'] })),
      `No block of 2 free ports is left in 45420-45423: clean up ended agents (${ended.id} holds ports in it) or widen paddock.worktree.portRange.`,
    );
  });

  /** A program listening on `port` for the length of `work`. */
  async function listening<T>(port: number, work: () => Promise<T>): Promise<T> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen({ port, host: '127.0.0.1' }, () => resolve()));
    try {
      return await work();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('an ended agent whose block a stranger listens on is named with a hedge: its cleanup may not end it', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45430-45431' } });
    const ended = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(ended.id);
    await listening(45430, async () => {
      assert.equal(
        await refusal(c.start({ repo: sb.repo, command: ['true'] })),
        `No block of 2 free ports is left in 45430-45431: clean up ended agents (${ended.id} holds ports in it; a program listens on 1 of them, which its cleanup may or may not end) or widen paddock.worktree.portRange.`,
      );
      // This program was not the agent's: after the cleanup only widening is left.
      await c.cleanup(ended.id);
      assert.equal(
        await refusal(c.start({ repo: sb.repo, command: ['true'] })),
        'No block of 2 free ports is left in 45430-45431 (other programs listen on 1): widen paddock.worktree.portRange.',
      );
    });
  });

  it('only the ended agents whose ports lie in the block a cleanup frees are named', async () => {
    const c = sb.coordinator({ worktree: { ports: 2, portRange: '45440-45443' } });
    const first = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(first.id);
    const second = await c.start({ repo: sb.repo, command: ['true'] });
    await sb.waitEnded(second.id);
    // A program on the first agent's block: only cleaning up the second one frees a block.
    await listening(45441, async () => {
      assert.equal(
        await refusal(c.start({ repo: sb.repo, command: ['true'] })),
        `No block of 2 free ports is left in 45440-45443: clean up ended agents (${second.id} holds ports in it) or widen paddock.worktree.portRange.`,
      );
    });
  });

  it('blocks of mixed sizes: an ended agent outside the freed block is not named', () => {
    // Ports asked for differ between repositories (or changed): E1's one port frees no block of 2.
    const words = portShortageWords(
      2,
      { first: 45450, last: 45455 },
      { ended: new Map([['E1', [45450]], ['E2', [45453, 45454]]]), live: new Set([45451, 45452]), busy: new Set(), freed: [45453, 45454], unsure: 0 },
    );
    assert.equal(words, 'No block of 2 free ports is left in 45450-45455: clean up ended agents (E2 holds ports in it) or widen paddock.worktree.portRange.');
  });
});
