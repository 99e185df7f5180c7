// Runs the unit suites (out/test/unit/**): `node scripts/run-unit.mjs [FOLDER…] [--grep PATTERN]`.
import { runSuite, suiteArgs } from './lib/runSuite.mjs';

const { grep, folders } = suiteArgs(process.argv.slice(2), process.env.PADDOCK_UNIT_GREP);
runSuite({ area: 'unit', timeout: 120_000, slow: 5_000, grep, folders });
