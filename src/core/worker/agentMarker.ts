/**
 * The environment variable every process of an agent inherits, set by the
 * worker to the job id: stop and cleanup find descendants that escaped the
 * agent's session by it. Its own module so the coordinator (in the extension
 * bundle) can name it without loading the PTY host.
 */
export const AGENT_MARKER_ENV = 'PADDOCK_JOB_ID';
