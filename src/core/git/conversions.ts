/**
 * Which files git converts on the way in (`add`: clean filter, ident, CRLF to
 * LF) or out (checkout: smudge filter, ident, LF to CRLF, an encoding), from
 * the attributes that apply to each (.gitattributes in the tree, the
 * repository's info/attributes, the person's and the system's files) and the
 * core.autocrlf / core.eol settings. Attributes are looked up (one check-attr
 * over every file) only when one of those files exists.
 */
import { encodeName } from './pathBytes';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { configEntries } from './configEntries';
import { FILTER_KEYS, filtersOffArgs } from './filterDrivers';
import { GIT_BULK_TIMEOUT_MS, runGit } from './runGit';
import { realPathOr } from '../common/paths';

/** The attributes under which git changes a file's bytes on the way in or out. */
const CONVERTING = ['text', 'eol', 'crlf', 'ident', 'filter', 'working-tree-encoding'] as const;
type Converting = (typeof CONVERTING)[number];

export interface IndexFile {
  mode: string;
  sha: string;
  path: string;
}

const FALSE = /^(false|no|off|0|)$/i;

interface ConversionConfig {
  autocrlf: 'true' | 'input' | null;
  /** core.eol is crlf (explicitly, or Windows' native default). */
  eolCrlf: boolean;
  attributesFile: string | null;
  /** The config keys of filter drivers (`filter.<driver>.clean`…): filteredPaths.ts turns them off from these. */
  filterKeys: string[];
}

async function conversionConfig(cwd: string, env: NodeJS.ProcessEnv): Promise<ConversionConfig> {
  // The filter drivers' keys in the same process (the capture counts its git processes).
  const res = await runGit(['config', '-z', '--get-regexp', `^core\\.(autocrlf|eol|attributesfile)$|${FILTER_KEYS}`], { cwd, env, allowFailure: true });
  const values = new Map<string, string>();
  const filterKeys: string[] = [];
  for (const { key, value } of configEntries(res.stdout)) {
    if (key.startsWith('filter.')) filterKeys.push(key);
    else if (value !== null) values.set(key.toLowerCase(), value);
  }
  const autocrlf = values.get('core.autocrlf');
  const eol = values.get('core.eol');
  return {
    autocrlf: autocrlf === undefined || FALSE.test(autocrlf) ? null : autocrlf.toLowerCase() === 'input' ? 'input' : 'true',
    eolCrlf: eol === 'crlf' || ((eol === undefined || eol === 'native') && process.platform === 'win32'),
    attributesFile: values.get('core.attributesfile') ?? null,
    filterKeys,
  };
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Whether an attributes file outside the tree may apply: the repository's info/attributes, the
 * person's (core.attributesFile, or the XDG default) and the system's (beside git's prefix).
 * Only when none exists (and the tree holds no .gitattributes) is the check-attr pass skipped.
 */
async function outsideAttributes(cwd: string, commonDir: string, config: ConversionConfig): Promise<boolean> {
  const home = process.env.HOME ?? '';
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const personal = config.attributesFile ? config.attributesFile.replace(/^~(?=\/|$)/, home) : path.join(xdg, 'git', 'attributes');
  const candidates = [path.join(commonDir, 'info', 'attributes'), path.resolve(cwd, personal), '/etc/gitattributes'];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !(await exists(path.join(dir, 'git')))) continue;
    const git = path.join(dir, 'git');
    const real = await realPathOr(git, git);
    // sysconfdir is <prefix>/etc unless the prefix is /usr: both the link's and the binary's prefix.
    candidates.push(path.join(dir, '..', 'etc', 'gitattributes'), path.join(path.dirname(real), '..', 'etc', 'gitattributes'));
    break;
  }
  for (const file of candidates) if (await exists(file)) return true;
  return false;
}

/** What, besides the tree's own .gitattributes, decides whether git converts anything here. */
export interface ConversionSetup {
  config: ConversionConfig;
  /** An attributes file outside the tree exists (`outsideAttributes`). */
  outside: boolean;
}

/**
 * The settings and the attribute files outside the tree: read once per capture, and begun at its
 * start (they depend on nothing the capture makes), so the answer is there when the files are listed.
 * `commonDir`: the repository's git dir (its info/attributes applies to every worktree).
 */
export async function readConversionSetup(cwd: string, commonDir: string): Promise<ConversionSetup> {
  const config = await conversionConfig(cwd, {});
  return { config, outside: await outsideAttributes(cwd, commonDir, config) };
}

/** filtersOff's settings (filteredPaths.ts) for the drivers the setup's config defines. */
export function filtersOffOf(setup: ConversionSetup): string[] {
  return filtersOffArgs(setup.config.filterKeys);
}

export interface ConvertibleOptions {
  worktree: string;
  /** The capture's environment (its temporary index: attributes missing on disk are read there). */
  env: NodeJS.ProcessEnv;
  /** Index entries whose file is on disk. */
  files: readonly IndexFile[];
  /** A .gitattributes file was found in the worktree. */
  treeHasAttributes: boolean;
  /** `readConversionSetup`'s answer for this worktree. */
  setup: Promise<ConversionSetup>;
}

/** What git may do to each regular file: change it on `add` (clean), and change it on checkout (smudge). */
export interface Convertible extends IndexFile {
  /** A checkout may write other bytes than the blob's (CRLF line ends, ident, a smudge filter, an encoding). */
  smudges: boolean;
}

function smudgesWith(values: Map<Converting, string>, config: ConversionConfig): boolean {
  const set = (a: Converting) => {
    const v = values.get(a);
    return v !== undefined && v !== 'unspecified' && v !== 'unset';
  };
  if (set('ident') || set('filter') || set('working-tree-encoding') || values.get('eol') === 'crlf') return true;
  if (values.get('text') === 'unset' || values.get('crlf') === 'unset') return false;
  const crlf = values.get('crlf');
  if (crlf !== undefined && crlf !== 'unspecified' && crlf !== 'input') return true;
  return config.autocrlf === 'true' || ((set('text') || set('eol')) && config.eolCrlf);
}

/**
 * `git check-attr` of `attributes` for `paths`, each path's values by attribute ("unspecified",
 * "unset", "set" or the value); with `allowFailure`, null when git fails. The one reading of it.
 */
export async function checkAttributes(cwd: string, env: NodeJS.ProcessEnv | undefined, paths: readonly string[], attributes: readonly string[], allowFailure = false): Promise<Map<string, Map<string, string>> | null> {
  const attrs = await runGit(['check-attr', '-z', '--stdin', ...attributes], { cwd, env, input: encodeName(paths.map((p) => `${p}\0`).join('')), timeoutMs: GIT_BULK_TIMEOUT_MS, names: true, allowFailure });
  if (attrs.code !== 0) return null;
  // "<path>\0<attribute>\0<value>\0" for each path and attribute.
  const byPath = new Map<string, Map<string, string>>();
  const parts = attrs.stdout.split('\0');
  for (let i = 0; i + 2 < parts.length; i += 3) {
    let values = byPath.get(parts[i]);
    if (!values) byPath.set(parts[i], (values = new Map()));
    values.set(parts[i + 1], parts[i + 2]);
  }
  return byPath;
}

/** Of the regular files, those git may convert (an attribute set, or core.autocrlf on), and which of them a checkout changes. */
export async function convertibleFiles(opts: ConvertibleOptions): Promise<Convertible[]> {
  const { worktree: cwd, env } = opts;
  const regular = opts.files.filter((f) => f.mode === '100644' || f.mode === '100755');
  if (regular.length === 0) return [];
  const { config, outside } = await opts.setup;
  if (!opts.treeHasAttributes && !outside) {
    return config.autocrlf ? regular.map((f) => ({ ...f, smudges: config.autocrlf === 'true' })) : [];
  }
  const byPath = (await checkAttributes(cwd, env, regular.map((f) => f.path), CONVERTING)) as Map<string, Map<Converting, string>>;
  const out: Convertible[] = [];
  for (const f of regular) {
    const values = byPath.get(f.path) ?? new Map<Converting, string>();
    // "unset" (-text, -filter) converts nothing; with every attribute unspecified only autocrlf does.
    const any = [...values.values()].some((v) => v !== 'unspecified' && v !== 'unset');
    if (any || config.autocrlf) out.push({ ...f, smudges: smudgesWith(values, config) });
  }
  return out;
}
