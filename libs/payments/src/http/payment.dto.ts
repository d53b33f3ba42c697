import { ApiProperty } from '@nestjs/swagger';
import { KNOWN_PROVIDERS, PAYMENT_STATUSES } from '../domain';

class RefundDto {
  @ApiProperty({ format: 'uuid', description: "the refund id: the provider's idempotency reference" }) id!: string;
  @ApiProperty({ type: 'integer' }) amount!: number;
  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed'],
    description: 'pending: reserved, the provider has not answered yet (a worker looks it up); failed: nothing was refunded',
  })
  status!: string;
  @ApiProperty({ type: String, nullable: true, description: "the provider's id of the refund" }) providerReference!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'charge_not_found' }) failureCode!: string | null;
  @ApiProperty({ type: String, nullable: true }) failureMessage!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({
    format: 'uuid',
    required: false,
    description: "Present on a refund made for a credit note's refundAmount (POST /invoices/{id}/credit-notes): that credit note.",
  })
  creditNoteId?: string;
}

class NextActionDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "where the customer completes the payment (3-D Secure): the provider's page, which the hosted invoice page sends them to; null when the provider gave no page (its own client-side flow)",
  })
  url!: string | null;
}

class DisputeDto {
  @ApiProperty({ description: "the provider's id of the dispute", example: 'dp_1MtJUT2eZvKYlo2CNaw2HvEv' }) id!: string;
  @ApiProperty({ type: 'integer', description: 'minor units, taken back from the invoice while open or lost' }) amount!: number;
  @ApiProperty({ example: 'fraudulent' }) reason!: string;
  @ApiProperty({ enum: ['open', 'won', 'lost'] }) status!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** The Payment resource (README: Payments). */
export class PaymentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) invoiceId!: string;
  @ApiProperty() customerId!: string;
  @ApiProperty({ type: 'integer', description: 'minor units' }) amount!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({
    enum: PAYMENT_STATUSES,
    description:
      'pending: the gateway has not answered yet, or is processing (a worker asks it again); requires_action: the customer must complete it at nextAction.url (3-D Secure); disputed: succeeded, then disputed by the customer (see dispute)',
  })
  status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'insufficient_funds' }) failureCode!: string | null;
  @ApiProperty({ type: String, nullable: true }) failureMessage!: string | null;
  @ApiProperty({ enum: KNOWN_PROVIDERS }) provider!: string;
  @ApiProperty({ type: String, nullable: true, description: "the provider's id of the charge" }) providerReference!: string | null;
  @ApiProperty({ type: 'integer', description: 'the succeeded refunds together' }) refundedAmount!: number;
  @ApiProperty({ type: [RefundDto] }) refunds!: RefundDto[];
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "1 for a payment made by POST /payments; for a subscription invoice's collection, the try it made (README: dunning)",
  })
  attempt!: number;
  @ApiProperty({ type: NextActionDto, required: false, description: 'Only while requires_action.' }) nextAction?: NextActionDto;
  @ApiProperty({ type: DisputeDto, required: false, description: 'Only once the charge was disputed.' }) dispute?: DisputeDto;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PaymentPageDto {
  @ApiProperty({ type: [PaymentDto] }) items!: PaymentDto[];
  @ApiProperty({ type: String, nullable: true }) nextPageToken!: string | null;
}

/** A payment provider of the environment: never its credentials, only their last characters. */
export class PaymentProviderDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: KNOWN_PROVIDERS }) name!: string;
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'a1b2',
    description: 'the last characters of the secret (stripe: after its sk_test_/sk_live_/rk_… prefix, which is shown); null for manual',
  })
  credentialsHint!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PaymentProviderListDto {
  @ApiProperty({ type: [PaymentProviderDto] }) items!: PaymentProviderDto[];
}

export class EnableProviderDto {
  @ApiProperty({ enum: KNOWN_PROVIDERS }) name!: string;
  @ApiProperty({
    type: 'object',
    // Named, so a typed client can send them (an object schema without properties admits none).
    properties: { secretKey: { type: 'string' }, webhookSecret: { type: 'string' } },
    nullable: true,
    example: { secretKey: 'sk_sandbox_4eC39HqLyjWDarjtT1zdp7dc' },
    description: 'sandbox: {secretKey: "sk_sandbox_…"}; manual: null; stripe: {secretKey: "sk_test_…" | "sk_live_…" | "rk_…", webhookSecret: "whsec_…"}',
  })
  credentials!: object | null;
}
