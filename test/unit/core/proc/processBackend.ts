/** Runs the enclosing mocha suite on one process backend (`PADDOCK_PROCESS_BACKEND`), put back after. */
export function useProcessBackend(backend: 'proc' | 'portable'): void {
  const saved = process.env.PADDOCK_PROCESS_BACKEND;
  before(() => {
    process.env.PADDOCK_PROCESS_BACKEND = backend;
  });
  after(() => {
    if (saved === undefined) delete process.env.PADDOCK_PROCESS_BACKEND;
    else process.env.PADDOCK_PROCESS_BACKEND = saved;
  });
}
