/** A full commit id as git prints it: 40 hex digits (SHA-1) or 64 (SHA-256), lower case. */
export const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export function isCommitId(text: string): boolean {
  return COMMIT_ID.test(text);
}
