import type { TestApp, TestResponse } from './e2e-app';

export type EnvironmentCall = (method: string, path: string, body?: unknown, expected?: number) => Promise<TestResponse>;

/** Requests in one environment with a token for it; a status other than `expected` fails the test with the answer. */
export function environmentCall(t: TestApp, environmentId: string): EnvironmentCall {
  const options = { environment: environmentId, token: t.token([environmentId]) };
  return async (method, path, body, expected) => {
    const response = await t.request(method, path, { ...options, body });
    if (expected !== undefined && response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return response;
  };
}
