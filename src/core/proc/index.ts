export * from './identity';
export * from './scan';
export * from './holders';
export * from './terminate';
export * from './signal';
export * from './sessionCommand';
