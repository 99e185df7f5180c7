#!/usr/bin/env node
/** `paddock` (dist/cli.js): runs the CLI's bundle, dist/cliMain.js, with the code cache (codeCache.ts). */
import * as path from 'node:path';
import { runBundleWithCodeCache } from '../core/common/codeCache';

runBundleWithCodeCache(path.join(__dirname, 'cliMain.js'), 'cli');
