// Throw-away git repositories: a tiny one for agents, and the 5,000-file one the start/cleanup figures use.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './env.mjs';

const GIT_ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false'];

export function git(cwd, ...args) {
  return execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function smallRepo(name = 'repo') {
  const dir = join(tempDir(`${name}`), 'repo');
  mkdirSync(dir);
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** 5,000 text files of 1–3 KB in 100 folders, one commit. */
export function bigRepo(files = 5000) {
  const dir = join(tempDir('bigrepo'), 'repo');
  mkdirSync(dir);
  for (let i = 0; i < files; i++) {
    const sub = join(dir, 'src', `mod${String(i % 100).padStart(3, '0')}`);
    if (i < 100) mkdirSync(sub, { recursive: true });
    const lines = [];
    const n = 30 + (i % 60);
    for (let l = 0; l < n; l++) lines.push(`export const value${l} = ${i * 1000 + l}; // file ${i} line ${l}`);
    writeFileSync(join(sub, `file${i}.ts`), lines.join('\n') + '\n');
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  // Packed, as a real repository is, and no automatic gc: the captures add
  // loose objects run after run, and a `gc --auto` set off by one run would
  // repack in the background during the next one's timed section.
  git(dir, 'config', 'gc.auto', '0');
  git(dir, 'gc', '-q');
  return dir;
}

/**
 * A realistic change set (as in the runtime facts): 50 modified, 20 deleted,
 * 30 new files, 3 × 1 MB binaries, a mode change, a rename and a staged file.
 */
export function applyChangeSet(worktree, seed) {
  const files = git(worktree, 'ls-files').split('\n').filter(Boolean);
  const pick = (k) => files[(k * 97 + seed) % files.length];
  const used = new Set();
  const take = (k) => {
    let f = pick(k);
    while (used.has(f)) f = pick(++k + 7919);
    used.add(f);
    return f;
  };
  for (let k = 0; k < 50; k++) writeFileSync(join(worktree, take(k)), `// changed by the agent ${seed}\n`, { flag: 'a' });
  for (let k = 50; k < 70; k++) execFileSync('rm', [join(worktree, take(k))]);
  mkdirSync(join(worktree, 'new'), { recursive: true });
  for (let k = 0; k < 30; k++) writeFileSync(join(worktree, 'new', `added${k}.ts`), `export const added = ${k};\n`.repeat(20));
  for (let k = 0; k < 3; k++) {
    const buf = Buffer.alloc(1024 * 1024);
    for (let b = 0; b < buf.length; b += 4) buf.writeUInt32LE((b * 2654435761 + seed + k) >>> 0, b);
    writeFileSync(join(worktree, 'new', `blob${k}.bin`), buf);
  }
  execFileSync('chmod', ['+x', join(worktree, take(80))]);
  git(worktree, 'mv', take(81), join('new', 'renamed.ts'));
  const staged = take(82);
  writeFileSync(join(worktree, staged), '// staged\n', { flag: 'a' });
  git(worktree, 'add', staged);
}
