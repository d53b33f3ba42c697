import { randomUUID } from 'node:crypto';
import { AggregateStore } from '@billing/event-store';
import {
  invoiceEvolver,
  ResolvedTax,
  resolveTax,
  TAX_CODE_STREAM,
  taxCodeEvolver,
  taxCodesOf,
  taxCodeStreamId,
  toInvoiceView,
  withCurrentTax,
} from '@billing/invoicing';
import { TestApp } from '@billing/testing';

export const PROBLEM = 'application/problem+json';

export function expectProblem(response: { status: number; headers: Headers; body: any }, status: number, type: string, pointers?: string[]) {
  expect({ status: response.status, type: response.body?.type }).toEqual({ status, type: `/problems/${type}` });
  expect(response.headers.get('content-type')).toContain(PROBLEM);
  if (pointers) expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(pointers);
}

export const customer = () => ({
  id: randomUUID(),
  handle: 'cust-1',
  name: 'Acme Oy',
  billingAddress: { street1: 'Mannerheimintie 1', street2: null, postalCode: '00100', city: 'Helsinki', county: null, country: 'FI', state: null },
});

/** Requests against another environment that only its own token can reach. */
export function otherEnvironment(t: TestApp) {
  const environmentId = randomUUID();
  const token = t.token([environmentId]);
  return {
    environmentId,
    token,
    request: (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
      t.request(method, path, { ...options, environment: environmentId, token }),
  };
}

/**
 * The read model (GET) must equal a fold of the invoice's stream, a draft
 * priced at the current rates of its tax codes (folded from their own
 * streams), and the ETag its version.
 */
export async function expectReadModelMatchesStream(t: TestApp, id: string, environmentId = t.environmentId, token?: string) {
  const response = await t.request('GET', `/invoices/${id}`, { environment: environmentId, token });
  expect(response.status).toBe(200);
  const store = t.app.get(AggregateStore);
  const { state, version } = await store.load({ environmentId, streamType: 'invoice', streamId: id }, invoiceEvolver);
  if (!state.exists) throw new Error(`invoice ${id} has no stream`);
  const register = new Map<string, ResolvedTax>();
  for (const code of taxCodesOf(state)) {
    const taxCode = await store.load({ environmentId, streamType: TAX_CODE_STREAM, streamId: taxCodeStreamId(environmentId, code) }, taxCodeEvolver);
    if (taxCode.state.exists) register.set(code, resolveTax(taxCode.state));
  }
  expect(response.body).toEqual(toInvoiceView(withCurrentTax(state, register)));
  expect(response.headers.get('etag')).toBe(`"${version}"`);
  return response.body;
}
