// Provisions and runs code-server 4.100.3 (VS Code 1.100.3, the newest that runs
// on Node 20) from the npm registry: the real VS Code server and workbench, with
// no download from anywhere else. Shared by the host-test harness and `npm start`.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync, rmSync, copyFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
const RIPGREP_VERSION = '1.15.11';
const RIPGREP_ARCHIVE = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

const DEBIAN_PACKAGES = [
  'build-essential', 'python3', 'pkg-config', 'libkrb5-dev', 'libx11-dev',
  'libxkbfile-dev', 'libsecret-1-dev', 'ripgrep', 'chromium', 'git', 'tmux',
];

export function cacheRoot() {
  return process.env.PADDOCK_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'paddock-test');
}

export function codeServerDir() {
  return join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
}

export function codeServerBin() {
  return join(codeServerDir(), 'node_modules', '.bin', 'code-server');
}

function log(msg) {
  console.log(`[code-server] ${msg}`);
}

function missingDebianPackages() {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\n', ...DEBIAN_PACKAGES], { encoding: 'utf8' });
  const installed = new Set(
    (r.stdout ?? '').split('\n').filter((l) => l.includes('install ok installed')).map((l) => l.split(' ')[0]),
  );
  return DEBIAN_PACKAGES.filter((p) => !installed.has(p));
}

/** Installs what the harness needs from Debian (when root) and code-server from npm, once per cache. */
export function provision() {
  const missing = missingDebianPackages();
  if (missing.length) {
    if (process.getuid?.() !== 0) {
      throw new Error(`Missing Debian packages: install them with "sudo apt-get install -y ${missing.join(' ')}", then re-run.`);
    }
    log(`installing Debian packages: ${missing.join(' ')}`);
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  if (existsSync(codeServerBin()) && existsSync(join(codeServerDir(), '.complete'))) return;

  const dir = codeServerDir();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // @vscode/ripgrep downloads its binary from GitHub unless a cached archive exists:
  // give it one holding Debian's rg.
  const tmp = mkdtempSync(join(tmpdir(), 'paddock-cs-install-'));
  const rgCache = join(tmp, `vscode-ripgrep-cache-${RIPGREP_VERSION}`);
  mkdirSync(join(rgCache, 'stage', 'rg-dir'), { recursive: true });
  copyFileSync('/usr/bin/rg', join(rgCache, 'stage', 'rg-dir', 'rg'));
  chmodSync(join(rgCache, 'stage', 'rg-dir', 'rg'), 0o755);
  execFileSync('tar', ['-czf', join(rgCache, RIPGREP_ARCHIVE), '-C', join(rgCache, 'stage', 'rg-dir'), 'rg']);
  // The archive holds `rg` at its root, as upstream's does.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'paddock-code-server-cache', private: true }));
  log(`installing code-server@${CODE_SERVER_VERSION} into ${dir} (about 2 minutes, once)`);
  const started = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: tmp, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' },
  });
  writeFileSync(join(dir, '.complete'), new Date().toISOString());
  rmSync(tmp, { recursive: true, force: true });
  log(`installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const USER_SETTINGS = {
  'terminal.integrated.gpuAcceleration': 'off',
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'telemetry.telemetryLevel': 'off',
  'git.openRepositoryInParentFolders': 'never',
  'workbench.tips.enabled': false,
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'workbench.colorTheme': 'Default Dark Modern',
};

/**
 * Starts code-server in its own process group with throw-away user-data,
 * extensions, config, XDG and TMPDIR dirs. Returns { url, port, stop(), dirs }.
 */
export async function startCodeServer({ workspace, env = {}, settings = {}, extraArgs = [], logFile } = {}) {
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'paddock-cs-'));
  const dirs = {
    root,
    userData: join(root, 'user-data'),
    extensions: join(root, 'extensions'),
    xdgConfig: join(root, 'xdg-config'),
    xdgData: join(root, 'xdg-data'),
    tmp: join(root, 'tmp'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...settings }, null, 2));
  const config = join(root, 'config.yaml');
  writeFileSync(config, 'auth: none\ncert: false\n');
  const args = [
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--disable-getting-started-override',
    '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--config', config,
    ...extraArgs,
  ];
  if (workspace) args.push(workspace);
  const out = logFile ? (await import('node:fs')).openSync(logFile, 'a') : 'ignore';
  const child = spawn(codeServerBin(), args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: dirs.xdgConfig,
      XDG_DATA_HOME: dirs.xdgData,
      TMPDIR: dirs.tmp,
      ...env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline && groupAlive(child.pid)) await sleep(200);
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(root, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stop(); // what it started in its group, and its throw-away dirs
      throw new Error(`code-server exited early with status ${child.exitCode} (its log: ${logFile ?? 'not kept'})`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return { url, port, stop, dirs, pid: child.pid };
    } catch {
      /* not yet listening */
    }
    await sleep(250);
  }
  await stop();
  throw new Error('code-server did not answer /healthz within 60 s');
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'paddock-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The workbench URL that loads an extension in development mode, optionally with a test runner. */
export function workbenchUrl(base, { folder, extensionPath, testsPath }) {
  const payload = [['skipWelcome', 'true']];
  if (extensionPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${new URL(base).host}${extensionPath}`]);
  if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://${new URL(base).host}${testsPath}`]);
  return `${base}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
