/** Where an agent's worktree and branch go: named in the store, whose schema holds every record to them (agentClaims.ts). */
export { worktreePathFor, branchNameFor } from '../store/agentClaims';
