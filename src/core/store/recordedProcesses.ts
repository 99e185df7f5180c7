/** The processes a record names by identity (pid, start time, boot id): what judging it looks at. */
import type { ProcessIdentity } from '../proc/identity';
import type { JobRecord } from './schema';

export function leftoverIdentities(job: JobRecord): ProcessIdentity[] {
  return (job.leftovers ?? []).flatMap((p) => (p.startTime !== undefined && p.bootId !== undefined ? [{ pid: p.pid, startTime: p.startTime, bootId: p.bootId }] : []));
}

export function recordedProcesses(job: JobRecord): ProcessIdentity[] {
  const launch = job.launch ? { pid: job.launch.workerPid, startTime: job.launch.startTime, bootId: job.launch.bootId } : undefined;
  return [job.execution, launch, job.check?.runner, ...leftoverIdentities(job)].filter((p): p is ProcessIdentity => p != null);
}
