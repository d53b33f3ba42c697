/**
 * Lint rules that keep the architecture honest (run by `npm run lint`):
 * - a bounded context's `domain/` is pure: no framework, ORM, driver or
 *   validation library, no other @billing package but the shared kernel, and
 *   nothing from its own context outside `domain/`;
 * - no package reaches into another package's files: only its public entry
 *   (`@billing/<name>`, its index.ts) may be imported across folders;
 * - a package under libs/ imports only the packages the context map
 *   (context-map.js) lets it use, and nothing of apps/;
 * - configuration comes from the environment in one place: `process.env` is
 *   read only by the config module (libs/platform/src/config) and the process
 *   entry; everything else gets its settings injected (test/ builds its own);
 * - a source file under 500 lines and a function under 80, counted as `wc -l`
 *   counts them (blank lines and comments included, so a file cannot grow by
 *   its comments); tests, test support and migrations excepted.
 */
const tseslint = require('typescript-eslint');
const { allowedImports } = require('./context-map');

/** Frameworks, drivers and I/O. Node's pure computations (node:crypto hashing, node:net address parsing) are allowed. */
const FRAMEWORKS = [
  '@nestjs/*',
  'typeorm',
  'typeorm/*',
  'pg',
  'pg-*',
  'class-validator',
  'class-transformer',
  'fastify',
  'fastify/*',
  'passport*',
  'rxjs',
  'jsonwebtoken',
];
const IO = ['fs', 'http', 'https', 'dns', 'child_process', 'worker_threads', 'cluster'].flatMap((name) => [name, `node:${name}`]);

/** Everywhere: another package only through its public entry. */
const PUBLIC_ENTRIES_ONLY = [
  {
    group: ['**/libs/*/src/**', '../../*/src/**', '../../../*/src/**', '../../../../*/src/**'],
    message: 'Import another package through its public entry, @billing/<name>.',
  },
  { group: ['@billing/*/**', '!@billing/testing/**'], message: "Import a package's public entry, @billing/<name>, never its files." },
];

/** In libs/<name>: the packages the context map allows (and the test support, for specs), never apps/. */
const contextMapRules = [...allowedImports()].map(([name, uses]) => ({
  files: [`libs/${name}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...PUBLIC_ENTRIES_ONLY,
          {
            group: ['@billing/*', ...uses.map((used) => `!@billing/${used}`), '!@billing/testing'],
            message: `The context map (context-map.js) lets ${name} use ${uses.length ? uses.join(', ') : 'no other package'}.`,
          },
          { group: ['**/apps/**'], message: 'Nothing in libs/ imports apps/.' },
        ],
      },
    ],
  },
}));

module.exports = tseslint.config(
  // libs/client/src/schema.d.ts is written by openapi-typescript (npm run client:generate).
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'libs/client/src/schema.d.ts'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-restricted-imports': ['error', { patterns: PUBLIC_ENTRIES_ONLY }],
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_' }],
      'no-debugger': 'error',
    },
  },
  ...contextMapRules,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    // The config module and the process entry (npm's lifecycle); embedded-postgres.ts passes the environment on to the binaries it runs.
    ignores: ['libs/platform/src/config/**', 'apps/api/src/main.ts', 'apps/api/src/database/embedded-postgres.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings from the injected configuration (libs/platform/src/config), never from process.env.' },
      ],
    },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/migrations/**'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
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
