/**
 * `paddock coordinate`: the coordinator loop without VS Code — launches queued
 * agents as slots free up and retries failed cleanups — until SIGINT/SIGTERM/SIGHUP
 * or the reader of its log goes away (what it runs in sessions of its own, checks
 * and teardowns, is ended then),
 * or with --until-idle until nothing is left to do (how the CLI runs it in the
 * background when it leaves work behind and no coordinator runs).
 * Any number may run; one leads at a time, the others wait to take over.
 */
import { printable } from '../../core/common/printable';
import { holdingInterrupts } from '../support/interrupts';
import { Coordinator } from '../../core/coordinator';
import { actingLeader, leaderLock } from '../../core/scheduler/leadership';
import { hasPendingWork, pendingWork } from '../../core/scheduler/pendingWork';
import { checksDue } from '../../core/scheduler/checksDue';
import type { JobRecord, JobStore } from '../../core/store';
import type { CliContext } from '../command';
import { defineCommand } from '../support/args';
import { ensureCoordinator } from '../support/backgroundCoordinator';
import { openStore, workerScriptPath } from '../support/session';
import { watchReaderGone } from '../support/readerGone';

/** How often --until-idle looks for work left. */
const IDLE_CHECK_MS = 1000;
/** Idle this many checks in a row before exiting (a launch between two passes is not idleness). */
const IDLE_CHECKS = 2;
/** How often --until-idle lists the store again though nothing said it changed. */
const FULL_LOOK_MS = 30_000;
/** What --until-idle says when it exits for want of work. */
const NOTHING_LEFT = 'nothing is left to do: exiting';
/** How long --until-idle tries for a lease no live process holds before it gives up. */
const LEASE_PATIENCE_MS = 60_000;

export const coordinateCommand = defineCommand({
  name: 'coordinate',
  usage: 'paddock coordinate [--until-idle]',
  summary: 'Run the coordinator loop (queue, cleanup retries) until interrupted, or with --until-idle until nothing is left to do.',
  options: { 'until-idle': { type: 'boolean' } },
  positionals: [],
  async run({ values }, ctx) {
    const untilIdle = values['until-idle'] === true;
    const store = openStore(ctx);
    const log = (message: string) => ctx.io.stderr.write(`${new Date().toISOString()} ${printable(message)}\n`);
    const coordinator = new Coordinator({ store, workerScript: workerScriptPath(ctx.env), env: ctx.env, log });
    coordinator.onDidChangeCapacityBlock((e) => {
      if (e.blockedBy.length === 0) log('capacity is no longer blocked by incomplete cleanups');
    });
    log(`coordinating ${store.home} (pid ${process.pid}); ${untilIdle ? 'exits when nothing is left to do' : 'Ctrl-C to stop'}`);
    // The coordinator's own timers do not hold the process open (they are unref'd for the extension host).
    const keepAlive = setInterval(() => undefined, 1 << 30);
    // The first SIGINT, SIGTERM or SIGHUP stops it (what it runs in sessions of its own, checks and
    // teardowns, is ended and recorded); a second quits at once. A listener that took itself off as it
    // ran (`process.once`) left only proper-lockfile's exit hook listening, which then re-raised the
    // signal: the process died there, leaving its checks running (docs/reliability.md).
    let got: NodeJS.Signals | undefined;
    await holdingInterrupts(
      (signal) => (got = signal),
      async (interrupted) => {
        const stopped = new Promise<string>((resolve) => interrupted.addEventListener('abort', () => resolve(`${got}: stopping the coordinator (agents keep running)`), { once: true }));
        // Its log is its only output: a reader that went away (`coordinate 2>&1 | grep -m1 …`) stops it as
        // a closed terminal does, and at once, not at the next line (whose failed write ended it abruptly).
        let readerWatch = { dispose: () => undefined as void };
        const readerGone = new Promise<string>((resolve) => {
          readerWatch = watchReaderGone(ctx.io.stderr, () => resolve('the reader of its log went away: stopping the coordinator (agents keep running)'));
        });
        const reason = await Promise.race([stopped, readerGone, ...(untilIdle ? [idle(coordinator, store)] : [])]);
        readerWatch.dispose();
        clearInterval(keepAlive);
        log(reason);
        coordinator.dispose();
        await coordinator.whenIdle();
        if (reason === NOTHING_LEFT) await handOverLateWork(ctx, store, log, coordinator);
      },
    );
    return 0;
  },
});

/**
 * The store looked at once more after the lease is released. A command that leaves work (a `start`
 * that queues) writes it first and then looks for a leader: seeing this one still leading, it left
 * the work to it, though this one had decided on an older listing (the store is re-listed only when
 * the watcher says so, which can come late) that nothing was left. Work seen now is handed to a new
 * background coordinator, as that command would have started one a moment later. Not a check this
 * one found nothing to run for (`skip`: no command, untrusted, or it could not be started — a check
 * recorded running, a capacity lock it could not take): a successor would fail it the same way and
 * hand it on as it exited, a new coordinator every second for good. A later run of that attempt is new work,
 * and so is one found with no command or an untrusted one whose `.paddock.json`, allow list or trust
 * changed since (a `paddock allow` meanwhile): the skip list is judged again first, as each pass does.
 */
async function handOverLateWork(ctx: CliContext, store: JobStore, log: (message: string) => void, coordinator: Coordinator): Promise<void> {
  if (await leaderLock(store.home).owner()) return;
  const jobs = (await store.list()).flatMap((e) => (e.ok ? [e.job] : []));
  await coordinator.forgetChangedCheckConfig(jobs);
  const presence = await ensureCoordinator(ctx, store, jobs, (j) => coordinator.checkFoundNothingToRun(j));
  if (presence.kind === 'started') log(`work arrived as this coordinator gave up the lease: started another (pid ${presence.pid})`);
  if (presence.kind === 'unavailable') log(`work arrived as this coordinator gave up the lease, and ${presence.reason}`);
}

/**
 * Resolves with a sentence once another coordinator leads or this one has nothing left to do. The
 * store is listed again only when it changed (the coordinator's watcher says so, and its own look
 * for dead workers writes what it finds) or every FULL_LOOK_MS; in between, what is left is judged
 * on the last listing, against the clock (a cleanup retry comes due).
 */
async function idle(coordinator: Coordinator, store: JobStore): Promise<string> {
  await coordinator.ready;
  const lease = leaderLock(store.home);
  let idleChecks = 0;
  let unledSince: number | undefined;
  let changed = true;
  let listedAt = 0;
  let due: string[] = [];
  let dueFor: JobRecord[] | undefined;
  let jobs: JobRecord[] = [];
  const subscription = coordinator.onDidChangeJob(() => (changed = true));
  try {
    for (;;) {
      // Only a live leader sends it away. A lease it could not take yet (its owner just died, a takeover
      // under way) it takes at its next retry: exiting then left the work it was started for undone.
      if (!coordinator.isLeader) {
        // A suspended one does not: this coordinator takes its lease over (leadership.ts).
        const owner = await actingLeader(lease).catch(() => undefined);
        // Asked again after the owner is read: this coordinator may have taken the lease meanwhile, and
        // read as "another" it exited at once, cutting its own first launch short (the agent stayed starting).
        if (owner && !coordinator.isLeader && owner.pid !== process.pid) return 'another coordinator leads: exiting';
      }
      unledSince = coordinator.isLeader ? undefined : (unledSince ?? Date.now());
      // A lease that stays untakeable (a folder it may not remove) is not waited on forever by a detached process.
      if (unledSince !== undefined && Date.now() - unledSince > LEASE_PATIENCE_MS) {
        return `could not take the coordinator lease ${lease.lockDir} for ${LEASE_PATIENCE_MS / 1000} s, and no live process holds it: exiting`;
      }
      if (changed || Date.now() - listedAt >= FULL_LOOK_MS) {
        changed = false; // before the listing: a change while it reads is listed next time
        listedAt = Date.now();
        jobs = (await store.list()).flatMap((e) => (e.ok ? [e.job] : []));
      }
      let busy = coordinator.hasWorkInFlight || hasPendingWork(pendingWork(jobs));
      // An attempt's check still to run counts only while a command is in force and this leader has
      // not found nothing to run for it (then it never looks again: counting it would never end).
      // Asked again on a new listing, or while some are due (the leader's memory changes without one):
      // it reads each candidate's config, and a running check's runner from the process table (`ps`).
      if (!busy && (dueFor !== jobs || due.length > 0)) {
        due = await checksDue(jobs, { home: store.home, skip: (j) => coordinator.checkFoundNothingToRun(j) });
        dueFor = jobs;
      }
      busy ||= due.length > 0;
      idleChecks = busy ? 0 : idleChecks + 1;
      if (idleChecks >= IDLE_CHECKS) return NOTHING_LEFT;
      await new Promise((r) => setTimeout(r, IDLE_CHECK_MS));
    }
  } finally {
    subscription.dispose();
  }
}
