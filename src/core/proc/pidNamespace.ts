/**
 * Which pid namespace this process counts pids in. A pid is a number within one namespace: a
 * window in a sandbox (Flatpak, a dev container) and a terminal outside it may share one store,
 * and each sees the other's processes under other pids or not at all. So a recorded identity
 * names its namespace (appended to the boot id, as in `bootId()`), and `recordedWhere` tells a
 * judgment whether a recorded pid counts here, in a namespace to be looked up (nsView.ts), or in
 * none it can tell (see identity.ts).
 */
import { readlinkSync } from 'node:fs';

/** The kernel's fixed inode of the initial pid namespace (PROC_PID_INIT_INO): no tag, as before namespaces were recorded. */
export const INITIAL_PID_NAMESPACE = 'pid:[4026531836]';
/** Where the namespace begins in a boot id (a portable boot id holds spaces, never this). */
const TAG = ' pid:[';

let cachedLink: string | undefined;

/** This process's namespace as /proc names it (`pid:[inode]`); the initial one where there are none (macOS). */
export function ownPidNamespace(): string {
  if (cachedLink === undefined) {
    try {
      const link = readlinkSync('/proc/self/ns/pid');
      cachedLink = link.startsWith('pid:[') ? link : INITIAL_PID_NAMESPACE;
    } catch {
      cachedLink = INITIAL_PID_NAMESPACE; // no /proc (macOS), or no namespaces: one namespace for all
    }
  }
  return cachedLink;
}

/** Whether this process is in the initial pid namespace, which every other one descends from. */
export function inInitialPidNamespace(): boolean {
  return ownPidNamespace() === INITIAL_PID_NAMESPACE;
}

/** '' in the initial pid namespace (and where there are none), else ` pid:[inode]`. */
export function pidNamespaceTag(): string {
  return inInitialPidNamespace() ? '' : ` ${ownPidNamespace()}`;
}

/** A boot id without its namespace: the boot itself. */
export function bootOf(bootId: string): string {
  const at = bootId.lastIndexOf(TAG);
  return at < 0 ? bootId : bootId.slice(0, at);
}

/** The namespace a boot id names (`pid:[inode]`), or undefined when it names none (the initial one, or an older Paddock's). */
export function namespaceOf(bootId: string): string | undefined {
  const at = bootId.lastIndexOf(TAG);
  return at < 0 ? undefined : bootId.slice(at + 1);
}

/**
 * Where a recorded pid counts, for this process (of boot `boot`, without namespace):
 * - `here`: this boot and this namespace — judged by the pid here;
 * - `untagged`: this boot, no namespace named, and this process is not in the initial one: the
 *   initial namespace's (a Paddock there writes no tag) or an older Paddock's in its own namespace,
 *   perhaps this one (found here by pid and start time, else out of sight);
 * - `namespace`: this boot, in the namespace `ns` — looked up there (nsView.ts);
 * - `otherBoot`: a pid of an earlier boot names nothing now.
 * `legacyBoot`: the boot id an older Paddock wrote here (the portable backend's pid 1 start), if any.
 */
export type RecordedWhere = { kind: 'here' } | { kind: 'untagged' } | { kind: 'namespace'; ns: string } | { kind: 'otherBoot' };

export function recordedWhere(recorded: string, boot: string, legacyBoot: () => string | undefined): RecordedWhere {
  if (recorded === boot + pidNamespaceTag()) return { kind: 'here' };
  if (bootOf(recorded) !== boot) return recorded === legacyBoot() ? { kind: 'here' } : { kind: 'otherBoot' };
  const ns = namespaceOf(recorded);
  return ns === undefined ? { kind: 'untagged' } : { kind: 'namespace', ns };
}
