// Runs the unit suites (out/test/unit/**): `node scripts/run-unit.mjs [FOLDER…] [--grep PATTERN] [--lanes N]`.
// With `--lanes N` (N > 1) the suite files run N at a time, each in a process of its own (scripts/lib/runLanes.mjs).
import { laneUnits, runLanes } from './lib/runLanes.mjs';
import { runSuite, suiteArgs } from './lib/runSuite.mjs';

const { grep, folders, summaryName, lanes } = suiteArgs(process.argv.slice(2), process.env.PADDOCK_UNIT_GREP);
if (lanes > 1) {
  await runLanes({ area: 'unit', script: import.meta.filename, units: laneUnits('unit', folders), lanes, extraArgs: grep ? ['--grep', grep] : [] });
} else {
  runSuite({ area: 'unit', summaryName, timeout: 120_000, slow: 5_000, grep, folders });
}
