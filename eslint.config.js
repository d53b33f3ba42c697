/**
 * Lint rules that keep the architecture honest (run by `npm test`):
 * - a bounded context's `domain/` is pure: no framework, ORM, driver or
 *   validation library, no other @billing package but the shared kernel, and
 *   nothing from its own context outside `domain/`;
 * - no context reaches into another context's files: only a package's public
 *   entry (`@billing/<name>`) may be imported across folders.
 */
const tseslint = require('typescript-eslint');

/** Frameworks, drivers and I/O. Node's pure computations (node:crypto hashing, node:net address parsing) are allowed. */
const FRAMEWORKS = ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'pg-*', 'class-validator', 'class-transformer', 'fastify', 'fastify/*', 'passport*', 'rxjs', 'jsonwebtoken'];
const IO = ['fs', 'http', 'https', 'dns', 'child_process', 'worker_threads', 'cluster'].flatMap((name) => [name, `node:${name}`]);

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/libs/*/src/**', '../../*/src/**', '../../../*/src/**', '../../../../*/src/**'], message: 'Import another package through its public entry, @billing/<name>.' },
            { group: ['@billing/*/**', '!@billing/testing/**'], message: "Import a package's public entry, @billing/<name>, never its files." },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_' }],
      'no-debugger': 'error',
    },
  },
  {
    files: ['libs/*/src/domain/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.arbitraries.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [...FRAMEWORKS, ...IO], message: 'Domains are pure: no framework, ORM, driver, validation library or I/O.' },
            { group: ['@billing/*', '!@billing/shared-kernel'], message: 'A domain depends on the shared kernel only.' },
            { group: ['../*'], message: 'A domain imports nothing of its context outside domain/.' },
          ],
        },
      ],
    },
  },
);
