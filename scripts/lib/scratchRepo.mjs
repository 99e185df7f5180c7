// A small git repository to open as the workspace in the host tests and `npm start`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function makeScratchRepo(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# scratch\n\nA scratch repository for trying Paddock.\n');
  writeFileSync(join(dir, 'src', 'hello.js'), "console.log('hello');\n");
  const git = (...a) => execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=Paddock', '-c', 'user.email=paddock@example.invalid', 'add', '-A');
  git('-c', 'user.name=Paddock', '-c', 'user.email=paddock@example.invalid', 'commit', '-q', '-m', 'initial');
  return dir;
}
