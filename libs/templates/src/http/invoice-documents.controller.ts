import { applyDecorators, Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, CallerContext, isUuid, problemResponse, readQuery, ResourceIdPipe } from '@billing/platform';
import { ValidationError } from '@billing/shared-kernel';
import { InvoiceDocuments } from '../documents/invoice-documents';

const INVOICE_ID_PIPE = new ResourceIdPipe('invoice');
const INVOICE_ID = { name: 'invoiceId', format: 'uuid', description: 'the invoice (or credit note) id' } as const;
const TEMPLATE_GROUP_QUERY = {
  name: 'templateGroupId',
  required: false,
  schema: { type: 'string', format: 'uuid' },
  description:
    "A draft renders with this group (absent: the environment's default group, else the built-in templates). A booked invoice always answers its recorded document: naming the group it was recorded with is accepted, naming another is a 409.",
} as const;
const DOCUMENT_ERRORS = [
  { status: 404, ...problemResponse('No such invoice, or no such template group, in this environment') },
  { status: 409, ...problemResponse('The invoice is booked and its document was recorded with another group (invoice-document-recorded)') },
  { status: 422, ...problemResponse("The draft's template failed to render (template-render-failed, template-limit-exceeded), or an invalid query parameter") },
  { status: 503, ...problemResponse('The environment has as many documents waiting to render as it may (render-queue-full, with Retry-After)') },
];

/** The OpenAPI of one of an invoice's documents: GET /invoices/{id}/<kind>, answered in its media type. */
function InvoiceDocument(route: {
  summary: string;
  description: string;
  mediaType: string;
  answer: string;
  schema: { type: 'string'; format?: 'binary' };
}): MethodDecorator {
  return applyDecorators(
    ApiOperation({ summary: route.summary, description: route.description }),
    ApiParam(INVOICE_ID),
    ApiQuery(TEMPLATE_GROUP_QUERY),
    ApiProduces(route.mediaType),
    ApiResponse({ status: 200, description: route.answer, content: { [route.mediaType]: { schema: route.schema } } }),
    ...DOCUMENT_ERRORS.map((error) => ApiResponse(error)),
  );
}

/**
 * An invoice's documents, served by the templates context: the PDF and its
 * HTML preview. A booked invoice's are its recorded bytes (the same on every
 * download, their sha256 in the ETag); a draft's are rendered live.
 */
@ApiTags('invoices')
@Controller('invoices')
export class InvoiceDocumentsController {
  constructor(private readonly documents: InvoiceDocuments) {}

  @Get(':invoiceId/pdf')
  @InvoiceDocument({
    summary: "An invoice's PDF",
    description: 'Rendered without a browser, text-extractable. A booked invoice answers its recorded document, byte for byte.',
    mediaType: 'application/pdf',
    answer: 'The PDF',
    schema: { type: 'string', format: 'binary' },
  })
  async pdf(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const document = await this.documents.documentOf(caller.environmentId, invoiceId, templateGroupOf(query));
    headers(reply, document.recorded ? document.sha256 : null, 'application/pdf', fileName(document.handle, invoiceId, 'pdf'));
    return document.pdf;
  }

  @Get(':invoiceId/html')
  @InvoiceDocument({
    summary: "An invoice's HTML preview",
    description: 'The HTML the template rendered, from which the PDF is laid out; served with a Content-Security-Policy that runs no script.',
    mediaType: 'text/html',
    answer: 'The HTML',
    schema: { type: 'string' },
  })
  async html(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const document = await this.documents.documentOf(caller.environmentId, invoiceId, templateGroupOf(query));
    headers(reply, document.recorded ? document.htmlSha256 : null, 'text/html; charset=utf-8', fileName(document.handle, invoiceId, 'html'));
    // Templates are untrusted: the preview may show markup, never run script or load anything.
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
    return document.html;
  }
}

function templateGroupOf(query: Record<string, unknown>): string | undefined {
  const { templateGroupId } = readQuery(query, ['templateGroupId'] as const);
  if (templateGroupId === undefined) return undefined;
  if (!isUuid(templateGroupId)) throw ValidationError.at('/query/templateGroupId', 'must be a template group id (a uuid)');
  return templateGroupId.toLowerCase();
}

/** The invoice number as a file name (a draft: invoice-<id>), reduced to characters safe in a header. */
function fileName(handle: string | null, invoiceId: string, extension: string): string {
  return `${(handle ?? `invoice-${invoiceId}`).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}.${extension}`;
}

/** A recorded document's ETag is the sha256 of its bytes (as its InvoiceDocumentRendered event records them); a live render has none. */
function headers(reply: FastifyReply, recordedSha256: string | null, contentType: string, filename: string): void {
  reply.header('content-type', contentType);
  reply.header('content-disposition', `inline; filename="${filename}"`);
  reply.header('x-content-type-options', 'nosniff');
  if (recordedSha256 !== null) {
    reply.header('etag', `"${recordedSha256}"`);
    reply.header('cache-control', 'private, max-age=0, must-revalidate');
  } else reply.header('cache-control', 'no-store');
}
