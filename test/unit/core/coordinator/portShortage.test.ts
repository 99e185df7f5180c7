/**
 * The sentence when no block of ports is left says what would help (bug 184): cleaning up ended
 * agents only when they hold ports whose release leaves a block; else widening the range.
 */
import * as assert from 'node:assert/strict';
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
});
