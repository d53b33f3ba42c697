import { BillingClient, createBillingClient } from '@billing/client';
import { TestApp } from './e2e-app';

/**
 * The typed client API consumers use (`@billing/client`), sending through the test app's `request`, so each of its
 * answers is validated against the served OpenAPI document like every other answer of the e2e suite.
 */
export function typedClient(t: TestApp, environmentId = t.environmentId): BillingClient {
  return createBillingClient({
    baseUrl: t.baseUrl,
    token: t.token([environmentId]),
    environmentId,
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      const body = request.body ? await request.text() : undefined;
      const answer = await t.request(request.method, `${url.pathname}${url.search}`, {
        rawBody: body,
        headers,
        environment: headers['x-environment'],
        token: headers.authorization.slice('Bearer '.length),
      });
      // A 204 (and any empty answer) has no body: Response refuses one.
      return new Response(answer.text === '' ? null : answer.text, { status: answer.status, headers: answer.headers });
    },
  });
}
