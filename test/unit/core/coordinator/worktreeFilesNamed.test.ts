/**
 * The timeline names every `copy` match left out of a new worktree, FIFOs too (bug 211), through a
 * real start with a real worker.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorSandbox, git, useCoordinatorSandbox } from './coordinatorFixture';

describe('Coordinator: worktree files left out are all named', function () {
  this.timeout(60_000);
  let sb!: CoordinatorSandbox;
  useCoordinatorSandbox((fresh) => (sb = fresh));

  it('a FIFO .env and seven more left out are each named on the timeline (bug 211)', async () => {
    writeFileSync(join(sb.repo, '.gitignore'), '.env*\n');
    git(sb.repo, 'add', '.gitignore');
    git(sb.repo, 'commit', '-q', '-m', 'ignore');
    const fifos = ['.env', ...Array.from({ length: 7 }, (_, i) => `.env.${i}`)];
    execFileSync('mkfifo', fifos.map((f) => join(sb.repo, f)));
    writeFileSync(join(sb.repo, '.env.real'), 'TOKEN=abc\n');
    writeFileSync(join(sb.repo, '.paddock.json'), `${JSON.stringify({ copy: ['.env*'] })}\n`);
    const job = await sb.coordinator().start({ repo: sb.repo, command: ['sh', '-c', 'cat .env.real > seen.txt'] });
    const done = await sb.waitEnded(job.id);
    assert.equal(done.lifecycle.state, 'completed', done.lifecycle.detail ?? '');
    const lines = (await sb.store.readTimeline(job.id)).filter((e) => e.type === 'worktree-files').map((e) => e.message);
    assert.match(lines[0] ?? '', /^copied 1 and linked 0 untracked path\(s\) into the worktree; skipped /);
    const said = lines.join('\n');
    for (const f of fifos) assert.ok(said.includes(`${f} (not a regular file (a FIFO))`), `${f} is not named: ${said}`);
  });
});
