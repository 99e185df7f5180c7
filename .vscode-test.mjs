// Runs the same host suites in desktop VS Code with @vscode/test-cli where one
// can be downloaded or is installed (`npm run test:desktop`). Offline machines
// use `npm test`, which drives code-server instead (scripts/host-test.mjs).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'out/test/host/**/*.test.js',
  version: '1.100.3',
  ...(process.env.VSCODE_EXECUTABLE ? { useInstallation: { fromPath: process.env.VSCODE_EXECUTABLE } } : {}),
  mocha: { ui: 'bdd', timeout: 120000 },
});
