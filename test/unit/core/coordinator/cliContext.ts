/** A CLI context for running core operations as the CLI's `withCoordinator` does (`asOneCommand`), on a sandbox's store. */
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../../../src/cli/command';
import { CLI_SCRIPT, type CoordinatorSandbox } from './coordinatorFixture';

/** Its stderr goes to `said` (the background coordinator's line among it); the CLI it starts is this build's. */
export function cliContextFor(sb: CoordinatorSandbox, said: (text: string) => void = () => undefined): CliContext {
  const stderr = new PassThrough().on('data', (d: Buffer) => said(d.toString()));
  return { env: { ...sb.env, PADDOCK_CLI_SCRIPT: CLI_SCRIPT }, cwd: sb.repo, io: { stdout: new PassThrough(), stderr, stdin: process.stdin } } as unknown as CliContext;
}
