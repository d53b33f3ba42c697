import { expectProblem, TestApp, TestResponse } from '@billing/testing';

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
