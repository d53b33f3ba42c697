import { ContractExchange, OpenApiContract } from './openapi-contract';

/** A document as the service writes one: a nullable nested member, a 201 with a required Location, problem answers. */
const DOCUMENT = {
  openapi: '3.0.0',
  paths: {
    '/things': {
      post: {
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } } },
        responses: {
          '201': {
            description: 'created',
            headers: { Location: { required: true, schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '422': { description: 'invalid', content: { 'application/problem+json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/things/{id}': {
      get: { responses: { '200': { description: 'found', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } } },
    },
    '/things/{id}/archive': {
      put: { responses: { '204': { description: 'archived' } } },
    },
  },
  components: {
    schemas: {
      ThingInput: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false },
      Failure: { type: 'object', required: ['reason'], properties: { reason: { type: 'string' } } },
      Thing: {
        type: 'object',
        required: ['id', 'failure', 'note', 'kind'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          failure: { type: 'object', nullable: true, anyOf: [{ $ref: '#/components/schemas/Failure' }, { type: 'object', nullable: true, enum: [null] }] },
          // The way Swagger wrote it: strict OpenAPI 3.0 reads this as never null.
          legacy: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/Failure' }] },
          note: { type: 'string', nullable: true },
          kind: { type: 'string', enum: ['a', 'b'] },
          count: { type: 'integer', format: 'int64' },
        },
      },
    },
  },
};

const ID = '0b8f6a52-3c3e-4b8e-9a43-2f5d7a6c1e01';
const thing = { id: ID, failure: null, note: null, kind: 'a' };

function exchange(overrides: Partial<ContractExchange> & { json?: unknown }): ContractExchange {
  const body = overrides.json === undefined ? thing : overrides.json;
  return {
    method: 'GET',
    path: `/things/${ID}`,
    status: 200,
    headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
    body,
    text: JSON.stringify(body),
    ...overrides,
  };
}

describe('OpenApiContract: every e2e answer against the served document', () => {
  const contract = new OpenApiContract(DOCUMENT as never);

  it('issue 20 #8: accepts null where a nested member is nullable the OpenAPI 3.0 way, and refuses it where only allOf says so', () => {
    expect(contract.violationsOf(exchange({}))).toEqual([]);
    expect(contract.violationsOf(exchange({ json: { ...thing, failure: { reason: 'x' } } }))).toEqual([]);
    expect(contract.violationsOf(exchange({ json: { ...thing, legacy: null } }))).toEqual([expect.stringContaining('/legacy must be object')]);
    expect(contract.violationsOf(exchange({ json: { ...thing, failure: { cause: 'x' } } }))).not.toEqual([]);
  });

  it('issue 20 #8: refuses an undeclared status, an undeclared content type, a body against its schema (an undocumented member too) and a body where none is declared', () => {
    expect(contract.violationsOf(exchange({ status: 409 }))).toEqual([expect.stringContaining('status 409 is not declared')]);
    expect(contract.violationsOf(exchange({ headers: new Headers({ 'content-type': 'text/plain' }) }))).toEqual([
      expect.stringContaining('content type text/plain is not declared'),
    ]);
    expect(contract.violationsOf(exchange({ json: { ...thing, kind: 'c' } }))).toEqual([
      expect.stringContaining('/kind must be equal to one of the allowed values'),
    ]);
    expect(contract.violationsOf(exchange({ json: { ...thing, count: 1.5 } }))).not.toEqual([]);
    expect(contract.violationsOf(exchange({ json: { ...thing, token: 'tok_success' } }))).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(contract.violationsOf(exchange({ method: 'PUT', path: `/things/${ID}/archive`, status: 204, text: 'x' }))).toEqual([
      expect.stringContaining('declares no body'),
    ]);
    expect(
      contract.violationsOf(
        exchange({ method: 'PUT', path: `/things/${ID}/archive`, status: 204, text: '', requestText: '{}', requestContentType: 'application/json' }),
      ),
    ).toEqual([expect.stringContaining('a request body the operation does not declare')]);
  });

  it('issue 20 #10: a 201 without its required Location breaks the contract', () => {
    const created = { method: 'POST', path: '/things', status: 201, requestText: '{"name":"a"}', requestContentType: 'application/json' };
    expect(contract.violationsOf(exchange(created))).toEqual([expect.stringContaining('required header Location is missing')]);
    const withLocation = new Headers({ 'content-type': 'application/json', location: `/things/${ID}` });
    expect(contract.violationsOf(exchange({ ...created, headers: withLocation }))).toEqual([]);
    expect(contract.violationsOf(exchange({ ...created, headers: withLocation, requestText: '{"name":1}' }))).toEqual([
      expect.stringContaining('request body: /name must be string'),
    ]);
  });

  it('lets the framework answer 404 on routes the document does not have, and nothing else', () => {
    expect(contract.violationsOf(exchange({ path: '/nowhere', status: 404, json: {} }))).toEqual([]);
    expect(contract.violationsOf(exchange({ path: '/nowhere', status: 200 }))).toEqual([expect.stringContaining('is not in the document')]);
    expect(contract.violationsOf(exchange({ path: '/openapi.json', json: DOCUMENT }))).toEqual([]);
  });
});
