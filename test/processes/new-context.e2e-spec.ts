import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * `npm run new:context` as a newcomer uses it: into a scratch copy of the repository, generate a context, register it
 * with the lines the generator prints, then type-check the whole copy, lint and format-check what changed, and run
 * the generated context's own tests (its decider's unit test, its projection spec and the e2e test of its two routes)
 * against this run's Postgres. Here, among the process tests, because it runs tsc, ESLint and a Jest of its own one
 * after another: run beside other files on a small machine it would only slow them down.
 */
const ROOT = join(__dirname, '..', '..');
const NAME = 'scaffold-probe';
const GENERATOR = 'scripts/new-context/new-context.js';
/** What a check of the copy reads: the sources and the configuration of every tool it runs. */
const COPIED = ['apps', 'libs', 'test', 'scripts', 'package.json', 'tsconfig.json', '.swcrc', 'jest.config.js', 'eslint.config.js', 'context-map.js'];
const FORMAT = ['.prettierrc.json', '.prettierignore'];
const STEP_TIMEOUT = 120_000;

const run = promisify(execFile);
let scratch: string;

/** Runs a Node tool of the copy; a failure throws with everything the tool printed, so the test's message says why. */
async function inScratch(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, [script, ...args], { cwd: scratch, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '', code } = error as { stdout?: string; stderr?: string; code?: number };
    throw new Error(`${script} ${args.join(' ')} exited with ${code}\n${stdout}\n${stderr}`);
  }
}

/** Applies one printed registration line: `  <file> (imports): <line>` after the file's imports, `(CONTEXTS)` last in that list. */
function register(file: string, list: string, line: string): void {
  const path = join(scratch, file);
  const text = readFileSync(path, 'utf8');
  if (list === 'imports') {
    writeFileSync(path, `${line}\n${text}`);
    return;
  }
  const end = text.indexOf('\n];', text.indexOf(`${list} = [`));
  if (end < 0) throw new Error(`no list ${list} in ${file}`);
  writeFileSync(path, `${text.slice(0, end)}\n  ${line}${text.slice(end)}`);
}

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'new-context-')));
  for (const entry of [...COPIED, ...FORMAT]) cpSync(join(ROOT, entry), join(scratch, entry), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(scratch, 'node_modules'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run new:context', () => {
  it('refuses a name that is not kebab-case, an existing context and a route prefix in use, with exit code 2', async () => {
    for (const [name, reason] of [
      ['Bad_Name', 'is not a kebab-case name'],
      ['catalog', 'libs/catalog already exists'],
      ['prices', 'is already a route prefix'],
    ]) {
      await expect(run(process.execPath, [GENERATOR, name], { cwd: scratch })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(reason) });
    }
  });

  describe('a generated and registered context', () => {
    let printed: string;
    beforeAll(async () => {
      printed = await inScratch(GENERATOR, [NAME]);
      const lines = [...printed.matchAll(/^ {2}(\S+) \((imports|CONTEXTS)\): (.+)$/gm)];
      expect(lines.map(([, file, list]) => `${file} ${list}`)).toEqual([
        'apps/api/src/contexts.ts imports',
        'apps/api/src/contexts.ts CONTEXTS',
        'context-map.js CONTEXTS',
      ]);
      for (const [, file, list, line] of lines) register(file, list, line);
    }, STEP_TIMEOUT);

    it(
      'type-checks with the whole repository, lints and is formatted',
      async () => {
        await inScratch('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit']);
        await inScratch('node_modules/eslint/bin/eslint.js', ['--max-warnings', '0', `libs/${NAME}`, 'apps/api/src/contexts.ts']);
        await inScratch('node_modules/prettier/bin/prettier.cjs', ['--check', `libs/${NAME}`, 'apps/api/src/contexts.ts', 'context-map.js']);
      },
      STEP_TIMEOUT,
    );

    it(
      "passes its decider's unit test, its projection spec and the e2e test of POST and GET over HTTP",
      async () => {
        // This run's Postgres (globalSetup's); the copy's own globalSetup migrates a template with the new migration.
        const env = { ...process.env, DATABASE_URL: process.env.TEST_PG_ADMIN_URL };
        const output = await inScratch('node_modules/jest/bin/jest.js', [`libs/${NAME}`, '--maxWorkers=1', '--ci', '--json'], env);
        const results = JSON.parse(output) as { numPassedTests: number; numFailedTests: number; testResults: { name: string }[] };
        expect(results.testResults.map((file) => file.name.slice(scratch.length + 1)).sort()).toEqual([
          `libs/${NAME}/src/domain/item.unit.spec.ts`,
          `libs/${NAME}/src/http/${NAME}-items.e2e-spec.ts`,
          `libs/${NAME}/src/read-model/${NAME}.projection.int.spec.ts`,
        ]);
        expect(results).toMatchObject({ numFailedTests: 0, numPassedTests: expect.any(Number) });
      },
      STEP_TIMEOUT,
    );
  });
});
