/**
 * The text of a small `paddock` launcher: a POSIX shell script that runs the
 * bundled CLI (dist/cli.js) with a given runtime, which may be VS Code's own
 * Electron run as plain Node. Used for the launcher a worker puts on its
 * agent's PATH and for the one "Install 'paddock' Command in PATH" writes.
 */

/** Single-quotes `text` for sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The comment every launcher written by Paddock carries: how an existing file is recognised as ours. */
export const LAUNCHER_MARKER = '# paddock-launcher';

export interface LauncherSpec {
  /** The runtime: Node, or VS Code's Electron (run as Node). */
  readonly execPath: string;
  /** The CLI bundle. */
  readonly cliScript: string;
  /** The store, exported as PADDOCK_HOME; absent: the CLI's own default ($PADDOCK_HOME, else XDG). */
  readonly home?: string;
  /** Why this launcher exists, for a person who opens it. */
  readonly purpose: string;
  /** Said (on stderr, exit 1) when the CLI bundle is gone, e.g. after the extension was updated. */
  readonly whenMissing?: string;
}

export function launcherScript(spec: LauncherSpec): string {
  const lines = ['#!/bin/sh', LAUNCHER_MARKER, `# ${spec.purpose}`];
  if (spec.whenMissing !== undefined) {
    lines.push(`if [ ! -f ${shellQuote(spec.cliScript)} ]; then echo ${shellQuote(spec.whenMissing)} >&2; exit 1; fi`);
  }
  if (spec.home !== undefined) lines.push(`PADDOCK_HOME=${shellQuote(spec.home)}; export PADDOCK_HOME`);
  // The runtime may be Electron's (VS Code): run it as plain Node.
  lines.push(`ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(spec.execPath)} ${shellQuote(spec.cliScript)} "$@"`, '');
  return lines.join('\n');
}
