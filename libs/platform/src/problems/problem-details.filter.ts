import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { responseHeadersOf } from '../http/versioned';
import { AsOfAnswer, buildProblem, PROBLEM_CONTENT_TYPE, StoredResponse, StoredResponseReplay } from './problem';
import { toProblemParts } from './to-problem';

/** Every error leaves the service as application/problem+json; a 500 never carries a stack or SQL. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problems');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}

export function sendProblem(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Pick<Logger, 'error'>): void {
  if (error instanceof StoredResponseReplay) {
    void reply.status(error.response.status).headers(error.response.headers).send(error.response.body);
    return;
  }
  if (error instanceof AsOfAnswer) {
    void reply.status(200).headers(responseHeadersOf(error.result)).send(error.result.resource);
    return;
  }
  if (toProblemParts(error).unexpected) {
    logger.error({
      msg: 'unhandled error',
      requestId: request.id,
      method: request.method,
      url: request.url,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
  }
  const { status, headers, body } = renderProblem(error, request);
  void reply.status(status).headers(headers).send(body);
}

/** The problem document an error is answered with, as status, headers and the exact body text. */
export function renderProblem(error: unknown, request: FastifyRequest): StoredResponse {
  const parts = toProblemParts(error);
  const problem = buildProblem({ ...parts, instance: request.url, requestId: String(request.id) });
  return { status: parts.status, headers: { ...parts.headers, 'content-type': PROBLEM_CONTENT_TYPE }, body: JSON.stringify(problem) };
}
