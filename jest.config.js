/**
 * One jest run for every kind of test, told apart by suffix:
 * `.unit.spec.ts` (pure, no database), `.int.spec.ts` (real Postgres),
 * `.e2e-spec.ts` (the HTTP API over real sockets against real Postgres).
 * Postgres comes from DATABASE_URL or, when unset, an embedded server
 * started once in globalSetup. The setup belongs to the int and e2e projects
 * only (Jest runs a project's globalSetup when it runs a test of that
 * project, once per path): `npm run test:unit` needs no database.
 */
const { readFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const swc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));
// `@billing/<context>` and `@billing/testing[/<file>]`, from the same paths swc compiles with.
const aliases = Object.fromEntries(
  Object.entries(swc.jsc.paths).map(([alias, [target]]) => [`^${alias.replace('*', '(.*)')}$`, `<rootDir>/${target.replace('*', '$1')}`]),
);

const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', { ...swc, sourceMaps: 'inline' }] },
  // A few transitive dependencies ship ESM only; Jest on Node 20 cannot require() them untransformed.
  transformIgnorePatterns: ['/node_modules/(?!(cookie|content-disposition|jose)/)'],
  moduleNameMapper: aliases,
  rootDir: __dirname,
};
const withPostgres = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Closes the apps a file left open (a test that timed out never reaches its close) before the file's scope is gone.
  testEnvironment: '<rootDir>/test/support/closing-environment.ts',
};

module.exports = {
  ...shared,
  // Real Postgres and real sockets on a 2-core machine running every file in parallel: a generous per-test
  // budget (these are correctness tests; speed is measured by `npm run bench`, never asserted here).
  testTimeout: 30_000,
  // Jest's default (cores − 1) runs one file at a time on a 2-core machine, where most of a file's time is spent
  // waiting on Postgres and sockets: two files at once keep both cores busy. `npm test` runs test/processes (many
  // service processes each: concurrent starts, kill -9, three billing workers) afterwards, one file at a time.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.unit.spec.ts'] },
    { ...shared, ...withPostgres, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,test}/**/*.int.spec.ts'] },
    { ...shared, ...withPostgres, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e-spec.ts'] },
  ],
};
