import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startTestApp, TestApp } from '@billing/testing';

const SCHEMA = join(__dirname, '..', '..', 'libs', 'client', 'src', 'schema.d.ts');

/** What openapi-typescript makes of a document (its command line: the package is ESM, which Jest cannot load). */
function typesOf(document: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'billing-client-'));
  try {
    writeFileSync(join(folder, 'openapi.json'), document);
    const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    // A member with a default is optional in a request (the service fills it in): not required, as the tool makes it by default.
    const options = ['--default-non-nullable', 'false', '--output', join(folder, 'schema.d.ts')];
    execFileSync(process.execPath, [cli, join(folder, 'openapi.json'), ...options], { stdio: 'pipe' });
    return readFileSync(join(folder, 'schema.d.ts'), 'utf8');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * `npm run client:check` (and `npm test`): the committed client's types are what the served `/openapi.json`
 * generates, so an API change cannot ship without its client. `npm run client:generate` runs this file with
 * CLIENT_SCHEMA=write, which writes them instead.
 */
describe('the typed client (libs/client)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is generated from the document the service serves', async () => {
    const generated = typesOf(await (await fetch(`${t.baseUrl}/openapi.json`)).text());
    if (process.env.CLIENT_SCHEMA === 'write') writeFileSync(SCHEMA, generated);
    const committed = readFileSync(SCHEMA, 'utf8');
    if (committed !== generated) {
      const lines = [committed.split('\n'), generated.split('\n')];
      const first = lines[0].findIndex((line, index) => line !== lines[1][index]);
      throw new Error(
        `libs/client/src/schema.d.ts is not what /openapi.json generates (first difference at line ${first + 1}: ` +
          `${JSON.stringify(lines[0][first])} against ${JSON.stringify(lines[1][first])}): run npm run client:generate`,
      );
    }
  });
});
