export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Asserts an RFC 9457 answer: status, content type, `type` (the problem
 * code), the members every problem has and, when given, the JSON Pointer of
 * the first field error.
 */
export function expectProblem(
  response: { status: number; headers: Headers | { get(name: string): string | null }; body: any },
  status: number,
  code: string,
  pointer?: string,
): void {
  expect({ status: response.status, contentType: response.headers.get('content-type'), type: response.body?.type }).toEqual({
    status,
    contentType: expect.stringContaining(PROBLEM_CONTENT_TYPE),
    type: `/problems/${code}`,
  });
  expect(response.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
  if (pointer !== undefined) expect(response.body.errors?.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
}
