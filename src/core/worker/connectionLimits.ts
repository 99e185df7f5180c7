/** How much a connection may queue, how long it may stay stuck or unauthenticated. */
export interface ConnectionLimits {
  /** Bytes queued in a viewer's socket beyond which it stops getting output. */
  highWaterBytes: number;
  /** How long a client may read nothing: a lagging viewer is then dropped, a closing connection destroyed (its answers unread). */
  stuckMs: number;
  /** How long a new connection has to authenticate. */
  handshakeMs: number;
}

/**
 * 8 MiB queued is ~0.2 s of a flood at full speed: a viewer on a busy machine
 * that is descheduled for a moment keeps every byte instead of being resynced.
 * The queue holds the PTY's reads themselves (no copies).
 */
export const DEFAULT_LIMITS: ConnectionLimits = { highWaterBytes: 8 * 1024 * 1024, stuckMs: 30_000, handshakeMs: 10_000 };
