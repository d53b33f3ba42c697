#!/usr/bin/env node
/**
 * `npm run new:context <name>`: writes a working bounded context under libs/<name>/src from ./template (a command, an
 * event, a decider with its test, a projection with its spec, the module, a migration, problems, streams, the
 * context definition, a controller with one POST and one GET, an e2e test of both, the published index), then
 * prints what to register by hand. docs/ARCHITECTURE.md ("Adding a context") walks through the result.
 *
 * Plain Node without a build step, so it runs in a fresh checkout; test/processes/new-context.e2e-spec.ts runs it
 * into a scratch copy of the repository and type-checks, lints and tests what it wrote.
 */
const { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const TEMPLATE = join(__dirname, 'template');
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
// Table names are `<name>_items` and Postgres cuts identifiers at 63 bytes; short names also keep routes readable.
const MAX_LENGTH = 30;
// Path aliases that are not contexts (tsconfig.json, .swcrc).
const RESERVED = ['testing'];

/** The spellings the template uses, from a kebab-case name (`usage-limits` → UsageLimits, usageLimits, usage_limits, USAGE_LIMITS). */
function spellings(name, timestamp) {
  const words = name.split('-');
  const pascal = words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  return {
    '%name%': name,
    '%Name%': pascal,
    '%nameCamel%': pascal[0].toLowerCase() + pascal.slice(1),
    '%name_snake%': words.join('_'),
    '%NAME%': words.join('_').toUpperCase(),
    '%TIMESTAMP%': String(timestamp),
  };
}

function substitute(text, tokens) {
  return Object.entries(tokens).reduce((result, [token, value]) => result.split(token).join(value), text);
}

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** The first path segment of every controller in apps/ and libs/: a context named like one would share its routes. */
function routePrefixes() {
  const sources = ['apps', 'libs'].flatMap((folder) => filesUnder(join(ROOT, folder))).filter((file) => file.endsWith('.controller.ts'));
  const prefixes = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/@Controller\('([^'/]+)/g)].map((match) => match[1]));
  return new Set(prefixes);
}

/** Why the name cannot be used, or null. */
function refusal(name) {
  if (!name) return 'usage: npm run new:context <name>   (a kebab-case name such as usage-limits)';
  if (!NAME.test(name)) return `"${name}" is not a kebab-case name: lower-case letters and digits, words joined by single hyphens, starting with a letter`;
  if (name.length > MAX_LENGTH) return `"${name}" is longer than ${MAX_LENGTH} characters`;
  if (existsSync(join(ROOT, 'libs', name))) return `libs/${name} already exists`;
  if (RESERVED.includes(name)) return `"${name}" is reserved (@billing/${name} is a path alias)`;
  if (routePrefixes().has(name)) return `"${name}" is already a route prefix (@Controller('${name}')): the new context's routes would mix with it`;
  return null;
}

async function main() {
  const name = process.argv[2];
  const refused = process.argv.length > 3 ? 'usage: npm run new:context <name>   (one name)' : refusal(name);
  if (refused) {
    process.stderr.write(`new:context: ${refused}\n`);
    process.exitCode = 2;
    return;
  }
  const tokens = spellings(name, Date.now());
  const target = join(ROOT, 'libs', name, 'src');
  // Prettier owns whitespace: the written files are formatted with the repository's settings, whatever the name's length.
  const prettier = require('prettier');
  const written = [];
  for (const file of filesUnder(TEMPLATE)) {
    const path = join(target, substitute(relative(TEMPLATE, file), tokens).replace(/\.tmpl$/, ''));
    const options = { ...(await prettier.resolveConfig(path)), filepath: path };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await prettier.format(substitute(readFileSync(file, 'utf8'), tokens), options));
    written.push(relative(ROOT, path));
  }
  const context = `${tokens['%nameCamel%']}Context`;
  process.stdout.write(
    [
      `Wrote ${written.length} files under libs/${name}/src: POST /${name}/items and GET /${name}/items/{itemId}, the ${name}-item stream,`,
      `the ${name}.read-model projection and its ${tokens['%name_snake%']}_items table.`,
      '',
      'Register the context (each line goes last in its list):',
      `  apps/api/src/contexts.ts (imports): import { ${context} } from '@billing/${name}';`,
      `  apps/api/src/contexts.ts (CONTEXTS): ${context},`,
      `  context-map.js (CONTEXTS): { name: '${name}', uses: [] },`,
      '',
      'Then:',
      '  npm run client:generate   (the served OpenAPI document gained the two routes: client:check fails until then)',
      `  test/architecture/evolvers.unit.spec.ts: add ${tokens['%nameCamel%']} (import * as ${tokens['%nameCamel%']} from '@billing/${name}') to its contexts`,
      '  docs/ARCHITECTURE.md: a row in the table of packages',
      `  npx jest libs/${name} --maxWorkers=1`,
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  process.stderr.write(`new:context: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
