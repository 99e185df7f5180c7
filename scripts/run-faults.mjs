// Runs the fault, bad-input and security suites (out/test/faults/**): `node scripts/run-faults.mjs [SUITE…] [--grep PATTERN] [--lanes N]`.
// `npm run test:faults` builds and compiles first; CI runs it after `npm test`.
// With `--lanes N` (N > 1) the suite files run N at a time, each in a process of its own (scripts/lib/runLanes.mjs).
import { laneUnits, runLanes } from './lib/runLanes.mjs';
import { runSuite, suiteArgs } from './lib/runSuite.mjs';

const { grep, folders, summaryName, lanes } = suiteArgs(process.argv.slice(2), process.env.PADDOCK_FAULTS_GREP);
if (lanes > 1) {
  await runLanes({ area: 'faults', script: import.meta.filename, units: laneUnits('faults', folders), lanes, extraArgs: grep ? ['--grep', grep] : [] });
} else {
  // Long cases set their own timeouts; this is the ceiling for the rest.
  runSuite({ area: 'faults', summaryName, timeout: 300_000, slow: 30_000, grep, folders });
}
