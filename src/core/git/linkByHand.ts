/**
 * The words that tell the person how to link a checkout to its registration themselves: the two
 * files Paddock's own link writes (linkFiles.ts), each named exactly, for that checkout only. Never
 * `git worktree repair`: whatever path it is given, it also rewrites EVERY checkout the repository
 * registers (bug 176), so a person's worktree that now belongs to another clone would be taken over.
 */
import * as path from 'node:path';
import { inlineCommand } from '../common/shellQuote';
import { posixWord, printfFormat } from '../common/posixQuote';

const NOT_REPAIR = "those two files only: not `git worktree repair`, which rewrites every checkout that repository registers";

/**
 * `text` written into `file` as a new file renamed over it, as Paddock's own `replaceFile`: a
 * symbolic link there is replaced, never written through into whatever it leads to. The new file is
 * one `mktemp` makes fresh in that folder (never an existing entry): the registration's folder comes
 * from the agent's archive, so a fixed temp name there could be its symbolic link, which `>` follows.
 * POSIX options and words only (posixQuote.ts), so the words work in dash and macOS's shell as in
 * bash (GNU's `mv -T` is not on BSD `mv`; `$'…'` is not in dash): without `-T`, `mv` would move the
 * file INTO a folder, or a folder a link there leads to, so a link there is removed first (`rm` of a
 * link removes the link only) and a folder there stops the chain, saying so. One that appears
 * between that look and the `mv` (no POSIX tool closes that gap) is looked for after it: the file
 * moved into it is taken back out and that is said. Whatever stops the chain, the temp file goes.
 * `chmod =rw` gives 0666 under the umask, the mode git gives these files (`mktemp` makes it 0600).
 * Null when a path cannot be spelled exactly (posixWord).
 */
function replacing(file: string, text: string): string[] | null {
  const target = posixWord(file);
  if (target === null) return null;
  const stop = (why: string) => ['printf', `'%s ${why}\\n'`, '"$f"', '>&2', ';', 'false', ';'];
  return [
    `f=${target}`, '&&', 't=$(mktemp -- "$f.XXXXXX")', '&&', '{', '{',
    'printf', printfFormat(text), '>', '"$t"', '&&',
    'chmod', '=rw', '"$t"', '&&',
    '{', '[', '!', '-L', '"$f"', ']', '||', 'rm', '-f', '--', '"$f"', ';', '}', '&&',
    'if', '[', '-d', '"$f"', ']', ';', 'then', ...stop('is a folder, not the link file git reads: nothing was written (move it aside, then run this again)'),
    'else', 'mv', '-f', '--', '"$t"', '"$f"', '&&',
    'if', '[', '-d', '"$f"', ']', ';', 'then', 'rm', '-f', '--', '"$f/${t##*/}"', ';', ...stop('became a folder while this ran: the file moved into it was taken out again (move it aside, then run this again)'), 'fi', ';',
    'fi', ';', '}', '||', '{', 'rm', '-f', '--', '"$t"', ';', 'false', ';', '}', ';', '}',
  ];
}

/** How to link `folder` to `adminDir` (`<common>/worktrees/<id>`): two commands, or, too long to show, the two files described. */
export function linkByHandWords(folder: string, adminDir: string, max = 4000): string {
  const dotGit = path.join(folder, '.git');
  // Never a clipped path in a command: it would name another file; too long, the files are described.
  const toFolderWords = replacing(dotGit, `gitdir: ${adminDir}\n`);
  const toAdminWords = replacing(path.join(adminDir, 'gitdir'), `${dotGit}\n`);
  const toFolder = toFolderWords && inlineCommand(toFolderWords, max);
  const toAdmin = toAdminWords && inlineCommand(toAdminWords, max);
  if (toFolder && toAdmin) return `${toFolder} and ${toAdmin} link it (${NOT_REPAIR})`;
  return `a .git file in it reading "gitdir: " and its registration's path, and that registration's gitdir file naming its .git, link it (${NOT_REPAIR})`;
}
