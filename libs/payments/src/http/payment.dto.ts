import { ApiProperty } from '@nestjs/swagger';

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

/** The Payment resource (README: Payments). */
export class PaymentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) invoiceId!: string;
  @ApiProperty() customerId!: string;
  @ApiProperty({ type: 'integer', description: 'minor units' }) amount!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], description: 'pending: the gateway has not answered yet (a worker asks it again)' }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'insufficient_funds' }) failureCode!: string | null;
  @ApiProperty({ type: String, nullable: true }) failureMessage!: string | null;
  @ApiProperty({ enum: ['sandbox', 'manual'] }) provider!: string;
  @ApiProperty({ type: String, nullable: true, description: "the provider's id of the charge" }) providerReference!: string | null;
  @ApiProperty({ type: 'integer', description: 'the succeeded refunds together' }) refundedAmount!: number;
  @ApiProperty({ type: [RefundDto] }) refunds!: RefundDto[];
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: "1 for a payment made by POST /payments; for a subscription invoice's collection, the try it made (README: dunning)",
  })
  attempt!: number;
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
  @ApiProperty({ enum: ['sandbox', 'manual'] }) name!: string;
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'a1b2', description: 'the last 4 characters of the secret; null for manual' }) credentialsHint!:
    string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PaymentProviderListDto {
  @ApiProperty({ type: [PaymentProviderDto] }) items!: PaymentProviderDto[];
}

export class EnableProviderDto {
  @ApiProperty({ enum: ['sandbox', 'manual'] }) name!: string;
  @ApiProperty({
    type: Object,
    nullable: true,
    example: { secretKey: 'sk_sandbox_4eC39HqLyjWDarjtT1zdp7dc' },
    description: 'sandbox: {secretKey: "sk_sandbox_…"}; manual: null',
  })
  credentials!: object | null;
}
