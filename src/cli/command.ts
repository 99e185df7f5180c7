/**
 * The CLI's command shape. Each `paddock <verb>` lives in `src/cli/commands/<verb>.ts`
 * and exports one CliCommand made by `defineCommand` (support/args.ts), which
 * parses its argv; `main.ts` dispatches. Commands throw PaddockError and never
 * print an error themselves: main's `errorReport` turns it into one sentence on
 * stderr and the exit status (`usage` → 2, `failed` → 1).
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
