/** The worker (dist/worker.js): runs the worker's bundle, dist/workerMain.js, with the code cache (codeCache.ts). */
import * as path from 'node:path';
import { runBundleWithCodeCache } from '../common/codeCache';

runBundleWithCodeCache(path.join(__dirname, 'workerMain.js'), 'worker');
