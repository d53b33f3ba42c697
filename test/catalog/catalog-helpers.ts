import { TestApp, TestResponse } from '@billing/testing';

export const PROBLEM = 'application/problem+json';

export function expectProblem(response: TestResponse, status: number, type: string): void {
  expect({ status: response.status, type: response.body?.type }).toEqual({ status, type: `/problems/${type}` });
  expect(response.headers.get('content-type')).toContain(PROBLEM);
  expect(response.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), instance: expect.any(String) });
}

/** A 422 whose errors include exactly these pointers (and no others). */
export function expectPointers(response: TestResponse, pointers: string[]): void {
  expectProblem(response, 422, 'validation-failed');
  expect((response.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([...pointers].sort());
}

export const monthlyFee = (overrides: Record<string, unknown> = {}) => ({
  name: 'Pro monthly',
  priceModel: 'fee',
  purchase: 'recurring',
  termCount: 1,
  termUnit: 'month',
  pricing: { eur: { unitAmount: 1500 } },
  ...overrides,
});

export async function createPrice(t: TestApp, body: unknown, options: { environment?: string; token?: string } = {}) {
  const response = await t.request('POST', '/prices', { body, ...options });
  expect(response.status).toBe(201);
  return response.body;
}
