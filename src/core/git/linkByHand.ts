/**
 * The words that tell the person how to link a checkout to its registration themselves: the two
 * files Paddock's own link writes (linkFiles.ts), each named exactly, for that checkout only. Never
 * `git worktree repair`: whatever path it is given, it also rewrites EVERY checkout the repository
 * registers (bug 176), so a person's worktree that now belongs to another clone would be taken over.
 */
import * as path from 'node:path';
import { inlineCommand, shellQuote } from '../common/shellQuote';

const NOT_REPAIR = "those two files only: not `git worktree repair`, which rewrites every checkout that repository registers";

/**
 * `printf`'s words into `file` as a new file renamed over it, as Paddock's own `replaceFile`: a
 * symbolic link there is replaced, never written through into whatever it leads to. The new file is
 * one `mktemp` makes fresh in that folder (never an existing entry): the registration's folder comes
 * from the agent's archive, so a fixed temp name there could be its symbolic link, which `>` follows.
 * POSIX options only, so the words work in macOS's shell as in Linux's (GNU's `mv -T` is not on BSD
 * `mv`): without `-T`, `mv` would move the file INTO a folder, or a folder a link there leads to, so
 * a link there is removed first (`rm` of a link removes the link only) and a folder stops the chain.
 * `chmod =rw` gives 0666 under the umask, the mode git gives these files (`mktemp` makes it 0600).
 */
function replacing(file: string, [format, value]: [string, string]): string[] {
  const target = shellQuote(file);
  return [
    `t=$(mktemp -- ${shellQuote(`${file}.XXXXXX`)})`, '&&',
    'printf', shellQuote(format), shellQuote(value), '>', '"$t"', '&&',
    'chmod', '=rw', '"$t"', '&&',
    '{', '[', '!', '-L', target, ']', '||', 'rm', '-f', '--', target, ';', '}', '&&',
    '[', '!', '-d', target, ']', '&&',
    'mv', '-f', '--', '"$t"', target,
  ];
}

/** How to link `folder` to `adminDir` (`<common>/worktrees/<id>`): two commands, or, too long to show, the two files described. */
export function linkByHandWords(folder: string, adminDir: string, max = 4000): string {
  const dotGit = path.join(folder, '.git');
  // Never a clipped path in a command: it would name another file; too long, the files are described.
  const toFolder = inlineCommand(replacing(dotGit, ['gitdir: %s\\n', adminDir]), max);
  const toAdmin = inlineCommand(replacing(path.join(adminDir, 'gitdir'), ['%s\\n', dotGit]), max);
  if (toFolder && toAdmin) return `${toFolder} and ${toAdmin} link it (${NOT_REPAIR})`;
  return `a .git file in it reading "gitdir: " and its registration's path, and that registration's gitdir file naming its .git, link it (${NOT_REPAIR})`;
}
