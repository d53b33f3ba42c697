import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp } from '@billing/testing';

/** The served OpenAPI document, as a client generator and a linter read it. */
describe('GET /openapi.json', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.request('GET', '/openapi.json', { token: null })).body;
  });
  afterAll(() => t.close());

  it('lints with no errors under @redocly/cli recommended rules', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = require.resolve('@redocly/cli/bin/cli.js');
    let output: string;
    try {
      output = execFileSync(process.execPath, [cli, 'lint', file, '--format=json'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = (error as { stdout: string }).stdout;
    }
    const report = JSON.parse(output.slice(output.indexOf('{')));
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(errors.map((p: { ruleId: string; message: string; location: { pointer: string }[] }) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('types every integer field as integer (money is int64, never a float)', () => {
    const offenders: string[] = [];
    walk(document, '', (node, pointer) => {
      if (node.type === 'number' && (node.format === 'int64' || node.format === 'int32')) offenders.push(pointer);
    });
    expect(offenders).toEqual([]);
    const unstated: string[] = [];
    walk(document, '', (node, pointer) => {
      if (node.type === 'number' && node.format !== 'double' && node.format !== 'float') unstated.push(pointer);
    });
    // A number without a format is ambiguous to a generator: integers are `integer`, decimals say `double`.
    expect(unstated).toEqual([]);
    const invoice = document.components.schemas.Invoice ?? document.components.schemas.InvoiceDetailDto;
    expect(invoice).toBeDefined();
  });

  it('names at least one server', () => {
    expect(document.servers.length).toBeGreaterThan(0);
  });
});

function walk(node: any, pointer: string, visit: (node: any, pointer: string) => void): void {
  if (typeof node !== 'object' || node === null) return;
  visit(node, pointer);
  for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${key}`, visit);
}
