import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { CommandContext, EventStore, foldStream } from '@billing/event-store';
import { HostedLinks, HostedLinkTarget, Invoice, invoiceEvolver, invoiceStream, toInvoiceView } from '@billing/invoicing';
import { APP_CONFIG, AppConfig, EnvironmentClock, HOSTED_PAGE_PATH, isUuid, Public, ScopedClock, setPageHeaders } from '@billing/platform';
import { DomainError, uuidV5 } from '@billing/shared-kernel';
import { formatDate, formatMoney, RecordedInvoiceDocumentQuery } from '@billing/templates';
import { CreatePaymentCommand } from '../create-payment/create-payment.command';
import { CUSTOMER_PROVIDERS, KnownProvider, Payment } from '../domain';
import { PaymentsReadModel } from '../read-model/payments.read-model';
import { CSP_HEADER, hostedPageHtml, HostedPage, NOT_FOUND_PAGE, PageState, TOO_MANY_REQUESTS_PAGE } from './hosted-page.html';
import { FixedWindowRateLimiter } from './rate-limiter';

/** Fixed namespace of the ids of payments made on hosted pages (a random v4 uuid chosen once; never change it). */
const HOSTED_PAYMENT_NAMESPACE = '5c0b7e2a-93d4-4f1e-8a6b-2e7d9c4f1a38';

interface OpenInvoice {
  readonly target: HostedLinkTarget;
  readonly invoice: Invoice;
}

/**
 * The hosted invoice page (issue 25): what a customer opens from the invoice's link, without a login. It lives in
 * payments, which pays invoices; it opens invoicing's links (HostedLinks) and shows templates' recorded document.
 * - GET /i/<token>: the page; GET /i/<token>/pdf: the recorded PDF; POST /i/<token>/pay: the pay form.
 * - Any token that names nothing current (unknown, forged, rotated, an invoice gone) answers the same 404 page.
 * - Every request counts against its client address's limit (HOSTED_PAGE_RATE_LIMIT a minute; then the 429 page).
 * Not in the OpenAPI document: pages for browsers, not API operations (README, "Hosted invoice page").
 */
@ApiExcludeController()
@Public()
@Controller(HOSTED_PAGE_PATH.slice(1))
export class HostedPageController {
  private readonly limiter: FixedWindowRateLimiter;
  private readonly publicBaseUrl: string;

  constructor(
    private readonly links: HostedLinks,
    private readonly eventStore: EventStore,
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
    private readonly payments: PaymentsReadModel,
    private readonly environmentClock: EnvironmentClock,
    private readonly clock: ScopedClock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limiter = new FixedWindowRateLimiter(config.hostedPages.rateLimitPerMinute);
    this.publicBaseUrl = config.hostedPages.publicBaseUrl;
  }

  @Get(':token')
  async page(
    @Param('token') token: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const opened = await this.admit(token, request, reply);
    if (typeof opened === 'string') return opened;
    const paymentId = typeof query.payment === 'string' && isUuid(query.payment) ? query.payment.toLowerCase() : null;
    const payment = await this.paymentOf(opened, paymentId);
    // Just paid (succeeded, or under way): no second pay button while the settlement is being recorded.
    const payable = payment === null || payment.status === 'failed';
    return this.render(token, opened, payment === null ? null : paymentNotice(payment), reply, 200, payable);
  }

  @Get(':token/pdf')
  async pdf(@Param('token') token: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer | string> {
    const opened = await this.admit(token, request, reply);
    if (typeof opened === 'string') return opened;
    const document = await this.queries.execute(new RecordedInvoiceDocumentQuery(opened.target.environmentId, opened.invoice.id));
    reply.header('content-type', 'application/pdf');
    reply.header('content-disposition', `attachment; filename="${fileName(opened.invoice)}"`);
    reply.header('etag', `"${document.sha256}"`);
    return document.pdf;
  }

  @Post(':token/pay')
  @HttpCode(303)
  async pay(
    @Param('token') token: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const opened = await this.admit(token, request, reply);
    if (typeof opened === 'string') return opened;
    const form = (body ?? {}) as Record<string, unknown>;
    const { nonce, provider, token: cardToken } = form;
    if (typeof nonce !== 'string' || !isUuid(nonce) || typeof provider !== 'string' || typeof cardToken !== 'string' || cardToken.length === 0) {
      return this.render(token, opened, { kind: 'error', text: 'The payment form was incomplete: enter the card token and try again.' }, reply, 400);
    }
    const { environmentId } = opened.target;
    // The form's nonce names the payment: a double submit (or a reload of the POST) finds the same payment and never charges twice.
    const paymentId = uuidV5(`${environmentId}\n${opened.invoice.id}\n${nonce.toLowerCase()}`, HOSTED_PAYMENT_NAMESPACE);
    let made: Payment;
    try {
      made = (
        await this.clock.runAt(await this.environmentClock.now(environmentId), () =>
          this.commands.execute(
            new CreatePaymentCommand(
              environmentId,
              // After 3-D Secure the gateway sends the customer back to the page, which says the outcome.
              {
                invoiceId: opened.invoice.id,
                provider,
                token: cardToken,
                paymentId,
                // The form's provider is the visitor's word: the payment's decider allows only those that take their money.
                byCustomer: true,
                returnUrl: `${this.publicBaseUrl}${HOSTED_PAGE_PATH}/${token}?payment=${paymentId}`,
              },
              this.context(),
            ),
          ),
        )
      ).state;
    } catch (error) {
      // A rule the payment broke (another payment pending, nothing due, provider not enabled): said on the page.
      if (!(error instanceof DomainError)) throw error;
      return this.render(token, opened, { kind: 'error', text: error.message }, reply, error.kind === 'conflict' ? 409 : 422);
    }
    // 3-D Secure: the customer completes the payment on the gateway's page; the gateway's event then records the outcome.
    reply.header(
      'location',
      made.status === 'requires_action' && made.nextAction?.url ? made.nextAction.url : `${HOSTED_PAGE_PATH}/${token}?payment=${paymentId}`,
    );
    reply.header('cache-control', 'no-store');
    return '';
  }

  /** The invoice a token opens now, or the 404 / 429 page (already set on the reply). */
  private async admit(token: string, request: FastifyRequest, reply: FastifyReply): Promise<OpenInvoice | string> {
    setPageHeaders(reply, CSP_HEADER);
    const now = Date.now();
    if (!this.limiter.allow(request.ip, now)) {
      reply
        .status(429)
        .header('retry-after', String(this.limiter.retryAfterSeconds(now)))
        .header('content-type', 'text/html; charset=utf-8');
      return TOO_MANY_REQUESTS_PAGE;
    }
    const target = this.links.open(token);
    const invoice = target === null ? null : await this.invoiceOf(target);
    if (target === null || invoice === null) {
      reply.status(404).header('content-type', 'text/html; charset=utf-8');
      return NOT_FOUND_PAGE;
    }
    return { target, invoice };
  }

  /** The invoice the link names, if the link is its current one (a rotated link's version is behind). */
  private async invoiceOf(target: HostedLinkTarget): Promise<Invoice | null> {
    const { state } = foldStream(await this.eventStore.readStream(invoiceStream(target.environmentId, target.invoiceId)), invoiceEvolver);
    if (state.status === 'none' || state.status === 'draft') return null;
    return (state.hostedLinkVersion ?? 0) === target.linkVersion ? state : null;
  }

  /** The page; `payable` false: no pay form even on an open invoice (a payment just made on it). */
  private async render(
    token: string,
    { target, invoice }: OpenInvoice,
    notice: HostedPage['notice'],
    reply: FastifyReply,
    status = 200,
    payable = true,
  ): Promise<string> {
    const document = await this.queries.execute(new RecordedInvoiceDocumentQuery(target.environmentId, invoice.id));
    const view = toInvoiceView(invoice);
    const state = pageState(invoice, view.totalDue);
    const locale = document.locale;
    const amountDue = formatMoney(view.totalDue, view.currency, locale);
    const provider = state === 'open' && payable ? await this.pageProvider(target.environmentId) : null;
    reply.status(status).header('content-type', 'text/html; charset=utf-8');
    return hostedPageHtml({
      lang: langOf(locale),
      title: `${invoice.type === 'credit_note' ? 'Credit note' : 'Invoice'} ${invoice.handle ?? ''}`.trim(),
      state,
      statusLabel: STATUS_LABELS[state],
      amountDue,
      dueDate: invoice.dueDate === null ? null : formatDate(invoice.dueDate, locale),
      pdfHref: `${HOSTED_PAGE_PATH}/${token}/pdf`,
      pdfFileName: fileName(invoice),
      payForm: provider === null ? null : { action: `${HOSTED_PAGE_PATH}/${token}/pay`, nonce: randomUUID(), provider, amount: amountDue },
      unpayable: state === 'open' && payable && provider === null ? 'This invoice cannot be paid online: contact the sender.' : null,
      notice,
      documentHtml: document.html.toString('utf8'),
    });
  }

  /** After a payment on the page (?payment=<id>): that payment, if it is one of this invoice. */
  private async paymentOf({ target, invoice }: OpenInvoice, paymentId: string | null): Promise<Payment | null> {
    if (paymentId === null) return null;
    const found = await this.payments.payment(target.environmentId, paymentId);
    return found === null || found.payment.invoiceId !== invoice.id ? null : found.payment;
  }

  /** The provider the form offers (by a token typed in: the sandbox's card tokens, Stripe's PaymentMethod ids). */
  private async pageProvider(environmentId: string): Promise<string | null> {
    const providers = await this.payments.providers(environmentId);
    return providers.find((provider) => provider.status === 'enabled' && CUSTOMER_PROVIDERS.includes(provider.name as KnownProvider))?.name ?? null;
  }

  private context(): CommandContext {
    const requestId = randomUUID();
    return {
      meta: { now: this.clock.now(), newId: randomUUID },
      metadata: { actor: 'hosted-invoice-page', requestId, correlationId: requestId, causationId: null },
    };
  }
}

const STATUS_LABELS: Record<PageState, string> = { open: 'Open', paid: 'Paid', void: 'Void', credit_note: 'Credit note' };

function pageState(invoice: Invoice, totalDue: number): PageState {
  if (invoice.type === 'credit_note') return 'credit_note';
  if (invoice.status === 'void') return 'void';
  return totalDue > 0 ? 'open' : 'paid';
}

function paymentNotice(payment: Payment): HostedPage['notice'] {
  if (payment.status === 'succeeded') return { kind: 'ok', text: 'Thank you: your payment succeeded.' };
  if (payment.status === 'failed')
    return { kind: 'error', text: `Your payment was declined: ${payment.failureMessage ?? payment.failureCode ?? 'unknown reason'}.` };
  if (payment.status === 'requires_action') return { kind: 'ok', text: 'Your bank asks you to confirm this payment: complete it, then reload the page.' };
  return { kind: 'ok', text: 'Your payment is being processed: reload the page in a moment.' };
}

/** `fi-FI` → `fi-FI`; anything that is not a language tag → `en`. */
function langOf(locale: string): string {
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(locale) ? locale : 'en';
}

function fileName(invoice: Invoice): string {
  return `${(invoice.handle ?? `invoice-${invoice.id}`).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}.pdf`;
}
