// ESLint (typescript-eslint). The one architectural rule that matters most:
// src/core/** never imports `vscode` — the CLI and workers run without it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// zod is imported through src/core/common/zod.ts only: it is zod/mini, with the English locale installed.
const ZOD_DIRECT = ['zod', 'zod/mini', 'zod/v4', 'zod/v4/mini', 'zod/v4/core'].map((name) => ({
  name,
  message: "Import zod as `import * as z from '…/core/common/zod'` (zod/mini with English messages).",
}));

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'bench-results/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'multi-line'],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'src/core must not depend on VS Code: put host code in src/ui or src/extension.ts.' },
            ...ZOD_DIRECT,
          ],
          patterns: [
            { group: ['**/ui/**', '**/extension', '**/cli/**'], message: 'Dependencies point into core only.' },
          ],
        },
      ],
    },
  },
  {
    // The one module that imports zod itself (and installs its English messages).
    files: ['src/core/common/zod.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code.' }], patterns: [{ group: ['**/ui/**', '**/extension', '**/cli/**'], message: 'Dependencies point into core only.' }] },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The CLI runs without VS Code.' }, ...ZOD_DIRECT],
          patterns: [{ group: ['**/ui/**', '**/extension'], message: 'The CLI depends on core only.' }],
        },
      ],
    },
  },
  {
    // Bug 113: Node 20's recursive mkdir loops for ever at full CPU when mkdir says ENOENT under a folder
    // that exists (a PADDOCK_HOME under /proc). Folders are made by core/common/makeDirs.ts, which has an end.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression:matches([callee.name=/^mkdir/], [callee.property.name=/^mkdir/]) > ObjectExpression > Property[key.name='recursive']",
          message: 'Use makeDirs or makeDirsSync (src/core/common/makeDirs.ts): Node\'s recursive mkdir can loop for ever (bug 113).',
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', '*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'fetch', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
          'clearImmediate', 'Buffer', 'performance', 'AbortController', 'TextDecoder', 'TextEncoder', 'queueMicrotask', 'structuredClone',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
