/**
 * The CLI's command shape. Each `paddock <verb>` lives in `src/cli/commands/<verb>.ts`
 * and exports one CliCommand; `main.ts` dispatches. Commands parse their own argv
 * with `node:util` parseArgs (strict) and throw PaddockError: `usage` → exit 2,
 * `failed` → exit 1, one sentence on stderr.
 */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
}

export interface CliContext {
  io: CliIO;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliCommand {
  name: string;
  /** One line, e.g. `paddock send ID TEXT`. */
  usage: string;
  summary: string;
  /** Returns the exit status (0 on success). */
  run(argv: string[], ctx: CliContext): Promise<number>;
}
