import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { sign, SignOptions } from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import { AppConfig, BoundedContext, Clock, JsonLogger, loadConfig } from '@billing/platform';
import { createApp } from '../../apps/api/src/create-app';
import { OPEN_TEST_APPS } from './open-test-apps';
import { OpenApiContract } from './openapi-contract';
import { createTestDatabase, TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-for-e2e-only';

export interface TestResponse<Body = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
  readonly text: string;
}

export interface RequestOptions {
  /** Defaults to the app's own environment; `null` sends no x-environment header. */
  readonly environment?: string | null;
  /** Defaults to a token for the app's environment; `null` sends no Authorization header. */
  readonly token?: string | null;
  readonly body?: unknown;
  /** A raw body, sent as is (for malformed-JSON tests). */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly baseUrl: string;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  readonly dataSource: DataSource;
  /** An environment the default token may access. */
  readonly environmentId: string;
  token(environments?: string[], options?: SignOptions, secret?: string): string;
  request<Body = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<Body>>;
  close(): Promise<void>;
}

/**
 * The real application (Fastify, guards, pipes, filters, projector) on a
 * real socket against its own fresh Postgres database.
 */
export async function startTestApp(
  options: { clock?: Clock; extraContexts?: readonly BoundedContext[]; env?: Record<string, string>; setupSql?: string[]; logger?: JsonLogger } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  if (options.setupSql?.length) {
    const setup = new DataSource({ type: 'postgres', url: database.url });
    await setup.initialize();
    for (const statement of options.setupSql) await setup.query(statement);
    await setup.destroy();
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '10',
    LOG_LEVEL: 'error',
    ...options.env,
  });
  // Quiet unless a test brings a logger of its own (to read what is logged).
  const app = await createApp(config, { clock: options.clock, extraContexts: options.extraContexts, logger: options.logger ?? false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const environmentId = randomUUID();
  const token = (environments = [environmentId], signOptions: SignOptions = {}, secret = TEST_JWT_SECRET) =>
    sign({ environments }, secret, { algorithm: 'HS256', subject: 'test-user', expiresIn: 3600, ...signOptions });
  const defaultToken = token();
  // Once, whoever asks first: the test, or the environment closing what a timed-out test left open.
  let closing: Promise<void> | undefined;
  const openApps = ((globalThis as Record<string, unknown>)[OPEN_TEST_APPS] ??= new Set()) as Set<{ close(): Promise<void> }>;
  const closeOnce = () =>
    (closing ??= (async () => {
      openApps.delete(handle);
      await app.close();
      await database.drop();
    })());
  const handle = { close: closeOnce };
  openApps.add(handle);
  let writes = 0;
  let contractOfApp: Promise<OpenApiContract> | undefined;
  // Every answer is checked against the document this very app serves (extra contexts add their routes).
  const contract = () => (contractOfApp ??= fetch(`${baseUrl}/openapi.json`).then(async (response) => contractFor(await response.text())));

  return {
    app,
    baseUrl,
    config,
    database,
    dataSource: app.get(DataSource),
    environmentId,
    token,
    async request(method, path, request = {}) {
      const headers: Record<string, string> = { ...request.headers };
      // Every other write of the whole e2e suite carries a fresh Idempotency-Key, so each route is proven on both paths.
      if ((method === 'POST' || method === 'PUT') && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key') && writes++ % 2 === 0) {
        headers['idempotency-key'] = randomUUID();
      }
      const environment = request.environment === undefined ? environmentId : request.environment;
      if (environment !== null) headers['x-environment'] = environment;
      const bearer = request.token === undefined ? defaultToken : request.token;
      if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
      let body: string | undefined = request.rawBody;
      if (request.body !== undefined) body = JSON.stringify(request.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      const answer = { status: response.status, headers: response.headers, body: parsed as any, text };
      const violations = (await contract()).violationsOf({
        method,
        path,
        requestContentType: Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1],
        requestText: body,
        ...answer,
      });
      if (violations.length > 0) throw new Error(`The answer breaks the service's own OpenAPI document:\n${violations.join('\n')}`);
      return answer;
    },
    close: closeOnce,
  };
}

const contracts = new Map<string, OpenApiContract>();

/** One compiled contract per distinct document: compiling the schemas is the costly part. */
function contractFor(document: string): OpenApiContract {
  let contract = contracts.get(document);
  if (!contract) {
    contract = new OpenApiContract(JSON.parse(document));
    contracts.set(document, contract);
  }
  return contract;
}

/** A clock the test moves by hand. */
export class FakeClock extends Clock {
  constructor(private current = new Date('2026-01-15T10:00:00.000Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(date: Date | string): void {
    this.current = new Date(date);
  }
  advance(milliseconds: number): void {
    this.current = new Date(this.current.getTime() + milliseconds);
  }
}
