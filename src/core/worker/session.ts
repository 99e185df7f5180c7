/**
 * What a control-socket connection may ask of the worker. The worker
 * implements it; connections never touch the PTY, the mirror or the store.
 */
import type { Event } from '../common/event';
import type { LifecycleState } from '../store/schema';
import type { ScreenSnapshot } from './mirror';

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export interface StopOutcome {
  state: LifecycleState;
  escalated: boolean;
  survivors: { pid: number; command: string }[];
}

export interface AgentSession {
  readonly state: LifecycleState;
  /** The PTY's current size. */
  readonly cols: number;
  readonly rows: number;
  /** Set once the agent has ended (the screen is final). */
  readonly exit: ExitInfo | null;
  /** The screen exactly at this point of the output stream. */
  snapshot(): Promise<ScreenSnapshot>;
  input(data: string): void;
  /** Typed input waits beyond its limit: a connection reads no more until `onDidDrainInput`. */
  readonly inputBacklogged: boolean;
  readonly onDidDrainInput: Event<void>;
  resize(cols: number, rows: number): void;
  /** Types the text, then Enter. */
  send(text: string): Promise<void>;
  signal(state: 'waiting' | 'running'): void;
  stop(force: boolean): Promise<StopOutcome>;
}
