import { randomUUID } from 'node:crypto';
import { CommandPath } from '@billing/event-store';
import {
  HostedLinks,
  invoiceEvolver,
  invoiceStream,
  ResolvedTax,
  resolveTax,
  taxCodeEvolver,
  taxCodesOf,
  taxCodeStream,
  toInvoiceView,
  withCurrentTax,
} from '@billing/invoicing';
import { TestApp } from '@billing/testing';

export const customer = () => ({
  id: randomUUID(),
  handle: 'cust-1',
  name: 'Acme Oy',
  billingAddress: { street1: 'Mannerheimintie 1', street2: null, postalCode: '00100', city: 'Helsinki', county: null, country: 'FI', state: null },
});

/** The JSON Pointers of a problem's field errors, in order. */
export function pointersOf(response: { body: any }): string[] {
  return (response.body?.errors ?? []).map((error: { pointer: string }) => error.pointer);
}

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
  const commands = t.app.get(CommandPath);
  const { state, version } = await commands.load(invoiceStream(environmentId, id), invoiceEvolver);
  if (state.status === 'none') throw new Error(`invoice ${id} has no stream`);
  const register = new Map<string, ResolvedTax>();
  for (const code of taxCodesOf(state)) {
    const taxCode = await commands.load(taxCodeStream(environmentId, code), taxCodeEvolver);
    if (taxCode.state.status === 'active') register.set(code, resolveTax(taxCode.state));
  }
  // Plus the hosted page link, which the view (stored, and carried by notifications) leaves to the API's answer.
  const hostedInvoiceUrl = t.app.get(HostedLinks).urlOf(environmentId, state);
  expect(response.body).toEqual({ ...toInvoiceView(withCurrentTax(state, register)), hostedInvoiceUrl });
  expect(response.headers.get('etag')).toBe(`"${version}"`);
  return response.body;
}
