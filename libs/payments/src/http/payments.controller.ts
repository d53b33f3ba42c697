import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import {
  Caller,
  CallerContext,
  Clock,
  commandContext,
  idFromIdempotencyKey,
  OwnCommits,
  Page,
  ResourceIdPipe,
  resourceDocs,
  Versioned,
} from '@billing/platform';
import { NotFoundError, ValidationError } from '@billing/shared-kernel';
import { CreatePaymentCommand } from '../create-payment/create-payment.command';
import { CreatePaymentDto } from '../create-payment/create-payment.dto';
import { parsePaymentQuery } from '../domain';
import { PaymentsReadModel } from '../read-model/payments.read-model';
import { RefundPaymentCommand } from '../refund-payment/refund-payment.command';
import { RefundPaymentDto } from '../refund-payment/refund-payment.dto';
import { PaymentView, toPaymentView } from '../views';
import { PaymentDto, PaymentPageDto } from './payment.dto';

const ID_PIPE = new ResourceIdPipe('payment');
/** Fixed namespace of payment ids made from Idempotency-Keys (a random v4 uuid chosen once; never change it). */
const PAYMENT_ID_NAMESPACE = '2d8f4b61-9c3e-4a75-b0e1-6a4c8d2f7e95';
/** Likewise for refund ids. */
const REFUND_ID_NAMESPACE = '8b1e6f0a-4d27-4c93-a5f8-3e9d7c21b604';
/** `filter` may be repeated; the others once. */
const LIST_QUERY = ['filter', 'orderBy', 'limit', 'pageToken'];
const PAYMENT = resourceDocs({
  type: PaymentDto,
  headers: { etag: { description: 'the version of the payment', schema: { type: 'string', example: '"3"' } } },
  id: { name: 'paymentId', format: 'uuid', description: 'the payment id' },
  notFound: 'No such payment in this environment',
});

@ApiTags('payments')
@Controller('payments')
export class PaymentsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: PaymentsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @OwnCommits()
  @PAYMENT.create({
    summary: 'Charge an invoice',
    description:
      'Records the payment (pending), asks the provider to charge it, records the outcome and answers. A succeeded payment settles its invoice (reference = payment id). ' +
      'An unknown outcome (a gateway timeout) answers 201 with status pending; a worker asks the gateway again, never charging twice. ' +
      'What a succeeded payment took is no longer due from its answer on, before its settlement reaches the invoice.',
    body: CreatePaymentDto,
    answer: 'The payment: succeeded, failed (failureCode, failureMessage) or pending',
    conflict:
      'Another payment of the invoice, made by any path (this API, the hosted page, a collection try), is still waiting for its outcome (payment-pending): try again once it has one',
    invalid: 'Invalid body; no such invoice, not booked, nothing due, amount above the total due; unknown or not enabled provider',
  })
  async create(@Caller() caller: CallerContext, @Body() body: CreatePaymentDto): Promise<Versioned<PaymentView>> {
    // With an Idempotency-Key the payment id comes from it: a retry after a lost answer finds the same payment, never charges twice.
    const request = {
      invoiceId: body.invoiceId,
      amount: body.amount,
      provider: body.paymentMethod.provider,
      token: body.paymentMethod.token,
      paymentId: idFromIdempotencyKey(PAYMENT_ID_NAMESPACE),
    };
    const { state: payment, version } = await this.commands.execute(
      new CreatePaymentCommand(caller.environmentId, request, commandContext(caller, this.clock)),
    );
    return new Versioned(toPaymentView(payment), version, `/payments/${payment.id}`);
  }

  @Get()
  @PAYMENT.list({
    summary: 'List payments',
    description:
      'filter (repeatable, combined with and): `field op value`, fields status, invoiceId, customerId, provider, currency (eq, ne) and amount, createdAt (eq, ne, gt, ge, lt, le); ' +
      'e.g. `filter=status eq succeeded&filter=amount ge 1000`. orderBy Id (default), CreatedAt or Amount, `-` for descending. Keyset paging (a pageToken belongs to its orderBy).',
    queries: [
      { name: 'filter', required: false, isArray: true, type: String },
      { name: 'orderBy', required: false, enum: ['Id', '-Id', 'CreatedAt', '-CreatedAt', 'Amount', '-Amount'] },
      'page',
    ],
    answer: 'A page of payments',
    type: PaymentPageDto,
    invalid: 'A malformed filter, unknown field or operator, bad value, orderBy or limit (pointer /query/<name>[/<index>])',
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<PaymentView>> {
    for (const [name, value] of Object.entries(query)) {
      if (!LIST_QUERY.includes(name)) throw ValidationError.at(`/query/${name}`, `unknown query parameter (accepted: ${LIST_QUERY.join(', ')})`);
      if (name !== 'filter' && typeof value !== 'string') throw ValidationError.at(`/query/${name}`, 'must be given once');
    }
    return this.readModel.list(caller.environmentId, parsePaymentQuery(query));
  }

  @Get(':paymentId')
  @PAYMENT.read({ summary: 'Get a payment', answer: 'The payment' })
  async get(@Caller() caller: CallerContext, @Param('paymentId', ID_PIPE) paymentId: string): Promise<Versioned<PaymentView>> {
    const found = await this.readModel.payment(caller.environmentId, paymentId);
    if (!found) throw new NotFoundError('payment', paymentId);
    return new Versioned(toPaymentView(found.payment), found.version);
  }

  @Put(':paymentId/refund')
  @OwnCommits()
  @PAYMENT.write({
    summary: 'Refund a payment, wholly or in part',
    description:
      'Reserves the refund, asks the provider to make it (the refund id is its idempotency reference) and records the outcome: the new entry of `refunds` is succeeded, ' +
      'failed (failureCode, failureMessage; nothing refunded, the amount is refundable again) or pending (no answer in time: a worker looks it up, never refunding twice). ' +
      'Several partial refunds are allowed; together, pending ones included, they never exceed the payment. A succeeded refund adds a negative settlement to the invoice.',
    body: RefundPaymentDto,
    answer: 'The payment with the refund',
    conflict: 'Only a succeeded payment can be refunded (payment-not-refundable)',
    invalid: 'amount not an integer from 1 to the refundable amount (named in the detail)',
  })
  async refund(
    @Caller() caller: CallerContext,
    @Param('paymentId', ID_PIPE) paymentId: string,
    @Body() body: RefundPaymentDto,
  ): Promise<Versioned<PaymentView>> {
    const { state: payment, version } = await this.commands.execute(
      // With an Idempotency-Key the refund id comes from it: a retry after a lost answer finds the same refund, never refunds twice.
      new RefundPaymentCommand(caller.environmentId, paymentId, body.amount, commandContext(caller, this.clock), idFromIdempotencyKey(REFUND_ID_NAMESPACE)),
    );
    return new Versioned(toPaymentView(payment), version);
  }
}
