// Runs the fault, bad-input and security suites (out/test/faults/**).
// `npm run test:faults` builds and compiles first; CI runs it after `npm test`.
import { runSuite, suiteArgs } from './lib/runSuite.mjs';

const { grep, folders } = suiteArgs(process.argv.slice(2), process.env.PADDOCK_FAULTS_GREP);
// Long cases set their own timeouts; this is the ceiling for the rest.
runSuite({ area: 'faults', timeout: 300_000, slow: 30_000, grep, folders });
