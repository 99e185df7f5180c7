/**
 * The web page that opens a pull (merge) request, from a remote's URL, for
 * the hosts whose URL forms are known: GitHub, GitLab, Bitbucket and Azure
 * DevOps (SSH and HTTPS forms, self-hosted GitHub/GitLab by host name).
 */

export interface RemoteHost {
  kind: 'github' | 'gitlab' | 'bitbucket' | 'azure';
  host: string;
  /** owner/name (GitLab: group/subgroup/name; Azure: org/project/_git/repo). */
  repoPath: string;
  /**
   * Where the host's web pages are: an https (or http) remote's own scheme, host and port — a
   * self-hosted server on :8443, or plain http inside a network; an ssh remote's host over https
   * (its port is the ssh server's, not the web's).
   */
  webRoot: string;
}

/**
 * host, path and web root of a remote URL: https://h/p, ssh://user@h:port/p, user@h:p. Credentials
 * (everything up to the last `@` before the path, as a password may hold an `@`) are never part of it.
 */
function hostAndPath(url: string): { host: string; path: string; webRoot: string; web: boolean } | null {
  const scheme = /^(https?|ssh|git|git\+ssh|ssh\+git):\/\/(?:[^/]*@)?([^/:@]+)(:\d+)?\/(.+)$/i.exec(url);
  if (scheme) {
    const host = scheme[2].toLowerCase();
    const web = /^https?$/i.test(scheme[1]) ? `${scheme[1].toLowerCase()}://${host}${webPort(scheme[1].toLowerCase(), scheme[3])}` : `https://${host}`;
    return { host, path: scheme[4], webRoot: web, web: /^https?$/i.test(scheme[1]) };
  }
  const scp = /^(?:[^@/]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(url);
  if (scp) return { host: scp[1].toLowerCase(), path: scp[2], webRoot: `https://${scp[1].toLowerCase()}`, web: false };
  return null;
}

/** An https (http) remote's port as its web pages' and API's: kept unless it is the scheme's own (443, 80), which says nothing. */
function webPort(scheme: string, port: string | undefined): string {
  if (port === undefined || port === (scheme === 'https' ? ':443' : ':80')) return '';
  return port;
}

/**
 * How gh is to be told the repository of a remote it may open the pull request on: `repo`, the
 * `--repo` argument `[HOST/]OWNER/REPO` (null: none, gh reads the remotes itself), or `unusable`,
 * the one sentence why gh cannot be used at all.
 */
export type GhRepo = { repo: string | null } | { unusable: string };

/**
 * github.com's repository without a host; a server's — GitHub by name, or an https host of no
 * known form, such as an Enterprise server at ghe.example.com — with its host. An ssh remote of
 * no known form is left to gh (its host may be an alias that only ~/.ssh/config resolves, as gh
 * does); an ssh remote's port is its ssh server's, not the API's. gh takes no port in a host
 * (cli/cli#6845): a server whose web pages are on a port of its own cannot be reached by gh, so
 * it is not asked (left to itself, gh drops the port and asks the server on :443). A path gh
 * cannot take (a GitLab-like group/sub/name) gives no `--repo`.
 */
export function githubRepoArg(url: string): GhRepo {
  const hp = hostAndPath(url.trim());
  const remote = parseRemoteUrl(url);
  if (hp === null || (remote !== null && remote.kind !== 'github')) return { repo: null };
  const authority = hp.webRoot.replace(/^https?:\/\//, '');
  if (hp.web && authority.includes(':')) return { unusable: `gh was not used: it cannot reach a server on a port of its own (${hp.webRoot}).` };
  const repoPath = hp.path.replace(/\/+$/, '').replace(/\.git$/, '');
  if (!/^[^/]+\/[^/]+$/.test(repoPath) || (!hp.web && remote === null)) return { repo: null };
  return { repo: authority === 'github.com' ? repoPath : `${authority}/${repoPath}` };
}

export function parseRemoteUrl(url: string): RemoteHost | null {
  const hp = hostAndPath(url.trim());
  if (!hp) return null;
  const repoPath = hp.path.replace(/\/+$/, '').replace(/\.git$/, '');
  if (hp.host === 'ssh.dev.azure.com' || hp.host.endsWith('vs-ssh.visualstudio.com')) {
    // v3/org/project/repo
    const [, org, project, repo] = repoPath.split('/');
    return org && project && repo ? { kind: 'azure', host: 'dev.azure.com', repoPath: `${org}/${project}/_git/${repo}`, webRoot: 'https://dev.azure.com' } : null;
  }
  if (hp.host === 'dev.azure.com' || hp.host.endsWith('.visualstudio.com')) {
    return repoPath.includes('/_git/') ? { kind: 'azure', host: hp.host, repoPath, webRoot: hp.webRoot } : null;
  }
  if (hp.host.includes('github')) return { kind: 'github', host: hp.host, repoPath, webRoot: hp.webRoot };
  if (hp.host.includes('gitlab')) return { kind: 'gitlab', host: hp.host, repoPath, webRoot: hp.webRoot };
  if (hp.host.includes('bitbucket')) return { kind: 'bitbucket', host: hp.host, repoPath, webRoot: hp.webRoot };
  return null;
}

/** The page that proposes merging `branch` into `base`, or null for a host whose form is not known. */
export function compareUrl(remoteUrl: string, branch: string, base: string): string | null {
  const remote = parseRemoteUrl(remoteUrl);
  if (!remote) return null;
  const e = encodeURIComponent;
  const root = `${remote.webRoot}/${remote.repoPath}`;
  switch (remote.kind) {
    case 'github':
      return `${root}/compare/${e(base)}...${e(branch)}?expand=1`;
    case 'gitlab':
      return `${root}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${e(branch)}&merge_request%5Btarget_branch%5D=${e(base)}`;
    case 'bitbucket':
      return `${root}/pull-requests/new?source=${e(branch)}&dest=${e(base)}`;
    case 'azure':
      return `${root}/pullrequestcreate?sourceRef=${e(branch)}&targetRef=${e(base)}`;
  }
}
