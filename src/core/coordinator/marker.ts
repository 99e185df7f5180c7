/**
 * The environment variable every process of an agent inherits (set by the
 * worker to the job id): it finds descendants that escaped the agent's session.
 */
export const AGENT_MARKER_ENV = 'PADDOCK_JOB_ID';
