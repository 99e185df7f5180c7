export * from './profile';
export * from './builtins';
export * from './resolve';
export * from './prompt';
