#!/usr/bin/env node
/** `paddock` (dist/cli.js): runs the CLI's bundle, dist/cliMain.js, with the code cache (codeCache.ts). */
import * as path from 'node:path';
import { runBundleWithCodeCache } from '../core/common/codeCache';
import { COMMAND_NAMES } from './commandNames';

// A cache holds what the run that wrote it compiled: one per verb, so that `paddock list` does not run with the
// functions the first `paddock start` after an update compiled (measured: 7 ms of a 1,000-agent listing).
const verb = process.argv[2];
const known = (COMMAND_NAMES as readonly string[]).includes(verb ?? '');
runBundleWithCodeCache(path.join(__dirname, 'cliMain.js'), known ? `cli-${verb}` : 'cli');
