import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Authenticator } from '../auth/guards';
import { AppConfig, GATEWAY_WEBHOOKS_PATH, HOSTED_PAGE_PATH } from '../config/app-config';
import { JsonLogger } from '../logging/json-logger';
import { Metrics } from '../metrics/metrics';
import { buildProblem, HttpProblem, PROBLEM_CONTENT_TYPE } from '../problems/problem';
import { sendProblem } from '../problems/problem-details.filter';
import { AuthenticatedRequest } from './request-context';
import { findInputDefect, InputDefect, isValidText, MAX_JSON_DEPTH, MAX_OBJECT_MEMBERS } from './hostile-input';
import { JsonText } from './json-text';
import { responseHeadersOf, Versioned } from './versioned';

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** The hosted invoice page's pay form is the one body read without a login: a few fields, so a small limit. */
export const HOSTED_FORM_BODY_LIMIT = 4 * 1024;
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
/** Longer than any id, code or handle this API takes in a path. */
const MAX_PARAM_LENGTH = 500;

/**
 * Fastify settings for the edge: body size, request and header time limits
 * (a slow client cannot hold a connection open indefinitely), and problem
 * bodies for the errors the HTTP layer raises before any route runs.
 */
export function edgeServerOptions(config: AppConfig): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    return503OnClosing: true,
    frameworkErrors: (error, request, reply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new HttpProblem(414, 'uri-too-long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`)
          : new HttpProblem(400, 'malformed-request', 'The URL is not validly percent-encoded.');
      sendProblem(problem, request, reply, { error: () => undefined });
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const [status, code, detail] =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT'
          ? [408, 'request-timeout', 'The request did not arrive in time.']
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'headers-too-large', 'The request headers are larger than the server accepts.']
            : [400, 'malformed-request', 'The request is not valid HTTP.'];
      const body = JSON.stringify(buildProblem({ status, code, detail, instance: '' }));
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    },
  };
}

/**
 * Hooks every route passes through, registered before any route:
 * - requests that carry a body are authenticated before the body is read, so
 *   an anonymous client cannot make the service buffer megabytes;
 * - JSON bodies are checked for nesting depth and for text Postgres cannot
 *   store (U+0000, unpaired surrogates), and so are path and query parameters;
 * - every answer carries the request id, and is logged once.
 */
export function installEdgeHooks(fastify: FastifyInstance, services: { logger: JsonLogger | false; metrics: Metrics; authenticator: Authenticator }): void {
  const { logger, metrics, authenticator } = services;
  installBodyParsers(fastify);

  // Hooks take callbacks, not promises: they run on every request, and all but the authentication are synchronous.
  fastify.addHook('onRequest', (request: AuthenticatedRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.is404 || !carriesBody(request)) return done();
    // The hosted page is public: its pay form is read without a login, and nothing else is read there.
    if (isHostedPagePath(request.url) && request.headers['content-type']?.split(';')[0].trim().toLowerCase() === FORM_CONTENT_TYPE) return done();
    // A gateway's events carry no login: their signature, checked by their route against the environment's secret, is the proof.
    if (isGatewayWebhookPath(request.url)) return done();
    authenticator.authenticate(request).then(
      () => done(),
      (error: unknown) => {
        // The body is never read: close the connection rather than drain it. Answered here, so the chain stops.
        try {
          reply.header('connection', 'close');
          sendProblem(error, request, reply, { error: () => undefined });
        } catch (failure) {
          done(failure as Error);
        }
      },
    );
  });

  fastify.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    try {
      checkParameterText(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  // A Versioned result becomes its resource plus ETag (and Location): one place, no per-request interceptor.
  // A JsonText body (bare or as a Versioned resource) is sent as it is, through this reply's serializer.
  fastify.addHook(
    'preSerialization',
    (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
      let body = payload;
      if (body instanceof Versioned) {
        reply.headers(responseHeadersOf(body));
        body = body.resource;
      }
      if (body instanceof JsonText) {
        const { text } = body;
        reply.serializer(() => text);
      }
      done(null, body);
    },
  );
  installAnswerHooks(fastify, logger, metrics);
}

/** JSON bodies checked for depth and storable text (a gateway's event left as its exact text); form posts only on the hosted page. */
function installBodyParsers(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // A gateway's event is verified against a signature of its exact bytes: its route gets the text, unparsed.
    if (isGatewayWebhookPath(request.url)) return done(null, body);
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      const defect = findInputDefect(value);
      if (defect) return done(defectProblem(defect, ''), undefined);
      done(null, value);
    });
  });

  // Form posts only on the hosted invoice page (its pay form); everywhere else the API takes JSON alone.
  fastify.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: HOSTED_FORM_BODY_LIMIT }, (request, body, done) => {
    if (!isHostedPagePath(request.url))
      return done(Object.assign(new Error('Unsupported Media Type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }));
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/** Every answer carries the request id, is measured, and is logged once (with a logger). */
function installAnswerHooks(fastify: FastifyInstance, logger: JsonLogger | false, metrics: Metrics): void {
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // The route template, never the raw URL: one series per operation, whatever the ids.
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  if (logger) {
    fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      logger.write(
        'info',
        {
          msg: 'request',
          requestId: request.id,
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
        },
        'Http',
      );
      done();
    });
  }
}

/** Path and query parameters are text Postgres can store (else 404 for a path parameter, 422 for a query one). */
function checkParameterText(request: FastifyRequest): void {
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && !isValidText(value)) {
      throw new HttpProblem(404, 'not-found', `No resource exists with that ${name}.`);
    }
  }
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const pointer = `/query/${name}`;
    if (!isValidText(name) || [value].flat().some((item) => typeof item === 'string' && !isValidText(item))) {
      throw defectProblem({ kind: 'invalid-text', pointer: '' }, pointer);
    }
  }
}

function isHostedPagePath(url: string): boolean {
  return url.startsWith(`${HOSTED_PAGE_PATH}/`);
}

function isGatewayWebhookPath(url: string): boolean {
  return url.startsWith(`${GATEWAY_WEBHOOKS_PATH}/`);
}

function carriesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function defectProblem(defect: InputDefect, prefix: string): HttpProblem {
  const pointer = `${prefix}${defect.pointer}` || '/';
  switch (defect.kind) {
    case 'too-deep':
      return new HttpProblem(400, 'malformed-request', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`, [
        { pointer, detail: `nested deeper than ${MAX_JSON_DEPTH} levels` },
      ]);
    case 'too-many-members':
      return new HttpProblem(422, 'validation-failed', `An object of the body has more than ${MAX_OBJECT_MEMBERS} members.`, [
        { pointer, detail: `has more than ${MAX_OBJECT_MEMBERS} members` },
      ]);
    case 'invalid-text':
      return new HttpProblem(422, 'invalid-text', 'Text must be valid Unicode without U+0000.', [
        { pointer, detail: 'contains U+0000 or an unpaired surrogate' },
      ]);
  }
}
