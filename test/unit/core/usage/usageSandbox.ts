/**
 * The sandbox of the suites that sample figures the way one-shot processes do:
 * a fresh store, a temp folder and an environment whose HOME is inside it (so
 * Claude Code's transcripts are looked for there), all removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobStore } from '../../../../src/core/store';
import { useTestBed } from '../store/helpers';

export const MB = 1024 * 1024;

export interface UsageSandbox {
  store: JobStore;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** Registers the hooks; `use` receives each test's sandbox. */
export function useUsageSandbox(prefix: string, use: (sandbox: UsageSandbox) => void): void {
  let store!: JobStore;
  let dir: string | undefined;
  useTestBed((_bed, s) => (store = s));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `paddock-${prefix}-`));
    use({ store, dir, env: { HOME: join(dir, 'home') } });
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
}

/** One line of a Claude Code transcript: an assistant message with its usage. */
export const claudeLine = (id: string, tokensIn: number, tokensOut: number): string =>
  `${JSON.stringify({ type: 'assistant', message: { id, usage: { input_tokens: tokensIn, output_tokens: tokensOut } } })}\n`;
