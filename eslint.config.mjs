// ESLint (typescript-eslint). The one architectural rule that matters most:
// src/core/** never imports `vscode` — the CLI and workers run without it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
          paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code: put host code in src/ui or src/extension.ts.' }],
          patterns: [
            { group: ['**/ui/**', '**/extension', '**/cli/**'], message: 'Dependencies point into core only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The CLI runs without VS Code.' }],
          patterns: [{ group: ['**/ui/**', '**/extension'], message: 'The CLI depends on core only.' }],
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
