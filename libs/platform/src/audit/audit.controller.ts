import { Controller, Get, Header, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { Caller, CallerContext } from '../http/request-context';
import { Page, readQuery } from '../http/paging';
import { problemResponse } from '../openapi/openapi';
import { ChainVerifier, VerifyResult } from './chain-verifier';
import { DEFAULT_LOG_LIMIT, EventLog, LogItem, MAX_LOG_LIMIT } from './event-log';
import { HeadSigner, SignedHead } from './head-signer';

const FILTER_QUERIES = [
  { name: 'type', required: false, description: 'Only events of this type (e.g. InvoiceBooked).', schema: { type: 'string' } },
  {
    name: 'resourceType',
    required: false,
    description: 'Only events of this public resource type (e.g. invoice, tax_code, webhook_subscription).',
    schema: { type: 'string' },
  },
  {
    name: 'resourceId',
    required: false,
    description: "Only events of this resource: its stream id (a uuid), or with resourceType the id its routes take (a tax code's code).",
    schema: { type: 'string' },
  },
  {
    name: 'from',
    required: false,
    description: 'occurredAt at or after this instant (RFC 3339 with a zone, or a date: midnight UTC).',
    schema: { type: 'string', format: 'date-time' },
  },
  { name: 'to', required: false, description: 'occurredAt strictly before this instant.', schema: { type: 'string', format: 'date-time' } },
];
const INVALID_QUERY = {
  status: 422,
  ...problemResponse('Invalid, repeated or unknown query parameter, or a pageToken of other filters (pointer /query/<name>)'),
};

export const LOG_ITEM_SCHEMA = {
  type: 'object',
  required: ['id', 'position', 'hash', 'type', 'resource', 'version', 'occurredAt', 'actor', 'requestId', 'correlationId', 'causationId', 'data'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    position: { type: 'integer', format: 'int64', description: "The event's place in its environment's hash chain: 1, 2, 3… in commit order." },
    hash: { type: 'string', description: 'Its link in the environment\'s hash chain (sha256, lower-case hex; README, "Audit").' },
    type: { type: 'string', example: 'InvoiceBooked' },
    resource: { type: 'object', properties: { type: { type: 'string', example: 'invoice' }, id: { type: 'string', description: 'The stream id.' } } },
    version: { type: 'integer', description: "The resource's version after this event (its ETag)." },
    occurredAt: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: "The token's subject, or system:<component> for the service's own reactions." },
    requestId: { type: 'string', nullable: true },
    correlationId: { type: 'string' },
    causationId: { type: 'string', nullable: true },
    data: {
      type: 'object',
      additionalProperties: true,
      description: 'The event\'s data in its current schema; secrets (encrypted keys, payment method tokens of collections) are replaced by "[redacted]".',
    },
  },
};
export const LOG_PAGE_SCHEMA = {
  type: 'object',
  properties: {
    items: { type: 'array', items: LOG_ITEM_SCHEMA },
    nextPageToken: { type: 'string', nullable: true, description: 'pass as pageToken for the next page; null on the last page' },
  },
};

/** The auditor's routes: the environment's event log, its export, and the hash chain's verification and signed head. */
@ApiTags('Audit')
@Controller()
export class AuditController {
  constructor(
    private readonly log: EventLog,
    private readonly verifier: ChainVerifier,
    private readonly signer: HeadSigner,
  ) {}

  @Get('events')
  @ApiOperation({
    summary: "The environment's event log in commit order",
    description:
      'Filters combine with and; unknown parameters are a 422. Keyset paged: a pageToken is bound to the filters it was returned with. ' +
      'A page holds at most `limit` events and stops once they reach LOG_PAGE_MAX_BYTES (default 4 MiB) of JSON (its first event always comes); nextPageToken continues after the last event shown.',
  })
  @ApiQuery(FILTER_QUERIES[0])
  @ApiQuery(FILTER_QUERIES[1])
  @ApiQuery(FILTER_QUERIES[2])
  @ApiQuery(FILTER_QUERIES[3])
  @ApiQuery(FILTER_QUERIES[4])
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LOG_LIMIT, default: DEFAULT_LOG_LIMIT } })
  @ApiQuery({ name: 'pageToken', required: false, schema: { type: 'string' } })
  @ApiResponse({ status: 200, description: '`{items, nextPageToken}`; nextPageToken is null on the last page.', schema: LOG_PAGE_SCHEMA })
  @ApiResponse(INVALID_QUERY)
  events(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<LogItem>> {
    return this.log.page(caller.environmentId, query);
  }

  @Get('events/export')
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary: 'The whole log (or its filtered part) as NDJSON',
    description:
      'One event per line (the items of GET /events), in commit order, streamed in batches (at most 1 000 events and LOG_PAGE_MAX_BYTES) as the client reads: never held in memory.',
  })
  @ApiQuery(FILTER_QUERIES[0])
  @ApiQuery(FILTER_QUERIES[1])
  @ApiQuery(FILTER_QUERIES[2])
  @ApiQuery(FILTER_QUERIES[3])
  @ApiQuery(FILTER_QUERIES[4])
  @ApiProduces('application/x-ndjson')
  @ApiResponse({ status: 200, description: 'NDJSON: one event per line.', content: { 'application/x-ndjson': { schema: LOG_ITEM_SCHEMA } } })
  @ApiResponse(INVALID_QUERY)
  export(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): StreamableFile {
    const filter = this.log.exportFilter(caller.environmentId, query);
    return new StreamableFile(Readable.from(this.log.exportLines(caller.environmentId, filter), { objectMode: false }), { type: 'application/x-ndjson' });
  }

  @Get('audit/verify')
  @ApiOperation({
    summary: "Recompute the environment's hash chain",
    description:
      'status ok with the head, or mismatch naming the first event whose hash does not match: its id, position, and what differs (content: the event was changed; link: the chain was edited; missing-event; unchained: written past the chain trigger).',
  })
  @ApiResponse({
    status: 200,
    schema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'mismatch'] },
        environmentId: { type: 'string', format: 'uuid' },
        eventsChecked: { type: 'integer' },
        head: { type: 'object', properties: { environmentId: { type: 'string', format: 'uuid' }, position: { type: 'integer' }, hash: { type: 'string' } } },
        event: {
          type: 'object',
          properties: { id: { type: 'string' }, position: { type: 'integer', nullable: true }, globalPosition: { type: 'string', nullable: true } },
        },
        differs: { type: 'string', enum: ['content', 'link', 'missing-event', 'unchained'] },
        detail: { type: 'string' },
      },
    },
  })
  @ApiResponse(INVALID_QUERY)
  verify(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<VerifyResult> {
    readQuery(query, []);
    return this.verifier.verify(caller.environmentId);
  }

  @Get('audit/head')
  @ApiOperation({
    summary: "The environment's chain head, signed",
    description:
      'Ed25519 (AUDIT_SIGNING_KEY) over the UTF-8 lines `billing-audit-head/v1`, environmentId, position, hash, at, joined by \\n; keep a copy outside the service to prove the past later (README, "Audit").',
  })
  @ApiResponse({
    status: 200,
    schema: {
      type: 'object',
      properties: {
        environmentId: { type: 'string', format: 'uuid' },
        position: { type: 'integer', description: 'Events chained so far (0: none).' },
        hash: { type: 'string', description: 'sha256 hex of the last link (64 zeros before the first event).' },
        at: { type: 'string', format: 'date-time' },
        signature: { type: 'string', format: 'byte' },
      },
    },
  })
  @ApiResponse(INVALID_QUERY)
  async head(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<SignedHead> {
    readQuery(query, []);
    return this.signer.sign(await this.verifier.head(caller.environmentId), new Date());
  }

  @Get('audit/public-key')
  @Header('content-type', 'application/x-pem-file')
  @ApiOperation({ summary: 'The public key signed heads verify with (SPKI PEM, Ed25519)' })
  @ApiProduces('application/x-pem-file')
  @ApiResponse({ status: 200, content: { 'application/x-pem-file': { schema: { type: 'string' } } } })
  @ApiResponse(INVALID_QUERY)
  publicKey(@Query() query: Record<string, unknown>): string {
    readQuery(query, []);
    return this.signer.publicKeyPem();
  }
}
