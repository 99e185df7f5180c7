export * from './runGit';
export * from './repo';
export * from './worktree';
export * from './evidence';
export * from './branch';
export * from './status';
