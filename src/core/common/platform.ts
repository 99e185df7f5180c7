/**
 * Where Paddock runs. Linux and macOS are supported; on Windows the agents'
 * terminals (ConPTY), control sockets (named pipes) and process control would
 * need their own design (docs/platforms.md), so Paddock says so in one
 * sentence and does nothing that would half-work.
 */
export const PLATFORMS_DOC_URL = 'https://example.invalid/paddock/docs/platforms.md';

/** One sentence for a platform Paddock cannot run on, or null where it can. */
export function unsupportedPlatformMessage(platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'linux' || platform === 'darwin') return null;
  if (platform === 'win32') {
    return 'Paddock runs agents on Linux and macOS; on Windows, use it inside WSL or through VS Code Remote (WSL, SSH or Dev Containers).';
  }
  return `Paddock runs agents on Linux and macOS, not on ${platform}.`;
}
