/**
 * Damaged parts of an agent's folder, through the real bundle (bugs 49 and 50). Found by review:
 * `retry` began the new generation and then failed on a timeline that was a folder, an output
 * folder that was a file or a sealed environment that was a folder, saying so in errno text
 * ("EISDIR: illegal operation on a directory, open '/…'") with status 1 although it had taken
 * effect; `logs` said "ENOTDIR: not a directory, scandir '/…'"; `forget` could not remove a
 * `jobs/<id>` that was a plain file.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertOneSentence, CoordinatorSandbox, runCli, useCoordinatorSandbox } from '../core/coordinator/coordinatorFixture';

/** No errno text: neither a code like ENOTDIR nor the C library's words for it. */
function assertNoErrnoText(text: string): void {
  assert.doesNotMatch(text, /\bE[A-Z]{3,}\b|not a directory,|illegal operation on a directory|scandir|, open '/, text);
}

describe('CLI: damaged parts of an agent', function () {
  this.timeout(90_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  const cli = (args: string[]) => runCli(args, { cwd: sb.repo, env: sb.env });
  const jobDir = (id: string) => join(sb.home, 'jobs', id);

  async function endedAgent(): Promise<string> {
    const run = await cli(['start', '--', 'true']);
    assert.equal(run.code, 0, run.stderr);
    const id = run.stdout.trim();
    await sb.waitEnded(id);
    return id;
  }

  const damages: [string, RegExp, (dir: string) => void][] = [
    ['a timeline that is a folder', /its timeline \(.*timeline\.jsonl\) is a folder, not a file/, (dir) => replaceWithFolder(join(dir, 'timeline.jsonl'))],
    ['an output folder that is a file', /its output folder \(.*output\) is a file, not a folder/, (dir) => replaceWithFile(join(dir, 'output'))],
    ['an output segment that is a folder', /its output segment 0+1\.seg \(.*\) is a folder, not a file/, (dir) => replaceWithFolder(join(dir, 'output', '000000000001.seg'))],
    ['a sealed environment that is a folder', /its sealed environment \(.*env\.sealed\) is a folder, not a file/, (dir) => replaceWithFolder(join(dir, 'env.sealed'))],
  ];

  for (const [what, said, damage] of damages) {
    it(`retry of an agent with ${what} is refused before it takes effect: status 1, one sentence naming the part, the generation unchanged`, async () => {
      const id = await endedAgent();
      damage(jobDir(id));
      const before = readFileSync(join(jobDir(id), 'job.json'), 'utf8');
      const run = await cli(['retry', id]);
      assert.equal(run.code, 1, run.stdout);
      assertOneSentence(run.stderr);
      assertNoErrnoText(run.stderr);
      assert.match(run.stderr, new RegExp(`^paddock retry: Agent ${id} cannot be retried: ${said.source}; nothing was changed`));
      assert.equal(readFileSync(join(jobDir(id), 'job.json'), 'utf8'), before, 'the record is as it was: no new generation');
    });
  }

  it('a retry whose timeline cannot be written once it took effect says it was retried (status 0), with a warning naming the part', async function () {
    const id = await endedAgent();
    const timeline = join(jobDir(id), 'timeline.jsonl');
    // Immutable: a regular file that even root cannot append to, so the check before the retry passes it.
    if (spawnSync('chattr', ['+i', timeline]).status !== 0) this.skip();
    try {
      const run = await cli(['retry', id]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Agent ${id} is \\w+ \\(generation 2\\)\\.\\n$`));
      assert.match(run.stderr, new RegExp(`^paddock retry: Agent ${id} was retried \\(generation 2\\), but its timeline entry could not be written: Agent ${id}'s timeline could not be opened: permission is denied \\(.*timeline\\.jsonl\\)\\.$`, 'm'));
      assertNoErrnoText(run.stderr);
      assert.equal((await sb.store.read(id)).lifecycle.generation, 2);
      await sb.waitEnded(id);
    } finally {
      spawnSync('chattr', ['-i', timeline]);
    }
  });

  it('logs of a damaged output folder or segment fails in one sentence naming the agent and the part', async () => {
    const id = await endedAgent();
    replaceWithFolder(join(jobDir(id), 'output', '000000000001.seg'));
    const segment = await cli(['logs', id]);
    assert.equal(segment.code, 1);
    assertOneSentence(segment.stderr);
    assertNoErrnoText(segment.stderr);
    assert.match(segment.stderr, new RegExp(`^paddock logs: Agent ${id}'s output segment 000000000001\\.seg could not be opened: it is a folder, not a file \\(`));
    replaceWithFile(join(jobDir(id), 'output'));
    const folder = await cli(['logs', id]);
    assert.equal(folder.code, 1);
    assertOneSentence(folder.stderr);
    assertNoErrnoText(folder.stderr);
    assert.match(folder.stderr, new RegExp(`^paddock logs: Agent ${id}'s output folder could not be listed: it is a file, not a folder \\(`));
  });

  it('forget removes a jobs/<id> that is a plain file, and nothing else', async () => {
    const kept = await endedAgent();
    writeFileSync(join(sb.home, 'jobs', 'plain0001'), 'not a folder\n');
    const listed = await cli(['list', '--json']);
    assert.match(listed.stdout, /"plain0001"/, 'listed at once, as unreadable: no create makes a file there');
    const keptFiles = readdirSync(jobDir(kept)).sort();
    const run = await cli(['forget', 'plain0001']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Removed agent plain0001 from the list.\n');
    assert.deepEqual(readdirSync(join(sb.home, 'jobs')).sort(), [kept]);
    assert.deepEqual(readdirSync(jobDir(kept)).sort(), keptFiles, 'the other agent is untouched');
    const again = await cli(['show', 'plain0001']);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /No agent plain0001 exists/);
  });
});

function replaceWithFolder(path: string): void {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path);
  writeFileSync(join(path, 'inside'), 'x');
}

function replaceWithFile(path: string): void {
  rmSync(path, { recursive: true, force: true });
  writeFileSync(path, 'x');
}
