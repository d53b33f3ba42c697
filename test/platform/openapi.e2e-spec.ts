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
    expect(
      errors.map((p: { ruleId: string; message: string; location: { pointer: string }[] }) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
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

  it('issue 20 #8: no nullable member wraps its $ref in allOf (a strict reader would refuse its null); actions without input declare their empty body', () => {
    const wrapped: string[] = [];
    walk(document, '', (node, pointer) => {
      if (node.nullable === true && node.allOf) wrapped.push(pointer);
    });
    expect(wrapped).toEqual([]);
    const reactivate = document.paths['/subscriptions/{subscriptionId}/reactivate'].put.requestBody;
    expect(reactivate).toMatchObject({ required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } } });
    // Cancel's body is optional: {at, prorate}.
    const cancel = document.paths['/subscriptions/{subscriptionId}/cancel'].put.requestBody;
    expect(cancel).toMatchObject({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/CancelSubscriptionDto' } } } });
    expect(document.components.schemas.CancelSubscriptionDto).toMatchObject({
      type: 'object',
      properties: { at: { enum: ['period_end', 'now'] }, prorate: { type: 'boolean' } },
    });
  });

  it('issue 20 #8: subscription answers keep the document with billingFailure, item period and billAt null, and cancel takes {}', async () => {
    // t.request checks every answer against /openapi.json and throws on any violation.
    const ok = async (method: string, path: string, body: unknown, status: number) => {
      const response = await t.request(method, path, { body });
      expect(response.status).toBe(status);
      return response.body;
    };
    const product = await ok('POST', '/products', { name: 'Setup' }, 201);
    const price = await ok(
      'POST',
      '/prices',
      { name: 'Setup fee', priceModel: 'fee', pricing: { eur: { unitAmount: 900 } }, purchase: 'one_time', productId: product.id },
      201,
    );
    const customer = { id: '8d0c4ed4-7f53-4c1e-8f59-2d5c3f0e6b11', handle: 'C-1', name: 'Acme', billingAddress: null };
    const subscription = await ok(
      'POST',
      '/subscriptions',
      { customer, currency: 'EUR', term: { start: '2099-01-01', end: null }, items: [{ priceId: price.id }] },
      201,
    );
    expect(subscription).toMatchObject({ billingFailure: null, paymentMethod: null });
    expect(subscription.items[0]).toMatchObject({ period: null });
    await ok('GET', `/subscriptions/${subscription.id}`, undefined, 200);
    await ok('GET', '/subscriptions', undefined, 200);
    const cancelled = await ok('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
    expect(cancelled.status).toBe('cancelled');
  });

  it('issue 20 #10: every 201 of the document declares a required Location', () => {
    const created: string[] = [];
    const withoutLocation: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const answer = operation?.responses?.['201'];
        if (!answer) continue;
        created.push(`${method} ${path}`);
        if (answer.headers?.Location?.required !== true) withoutLocation.push(`${method} ${path}`);
      }
    }
    expect(created).toContain('post /invoices/{invoiceId}/settlements');
    expect(withoutLocation).toEqual([]);
    expect(document.paths['/invoices/{invoiceId}/duplicate'].post.responses['200'].headers.Location.required).toBe(true);
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
