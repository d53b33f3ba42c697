import { ProblemType } from '@billing/platform';

/** The payments context's problem types (served at /problems/<code>). */
export const PAYMENTS_PROBLEMS: Record<string, ProblemType> = {
  'payment-exists': { status: 409, title: 'Conflict', description: 'A payment with this id already exists.' },
  'payment-pending': {
    status: 409,
    title: 'Payment pending',
    description: 'Another payment of the invoice is still waiting for its outcome; it is resolved before another can be made.',
  },
  'collection-not-due': { status: 409, title: 'Conflict', description: 'No collection try is due for this invoice (another process claimed it).' },
  'payment-not-refundable': { status: 409, title: 'Conflict', description: 'Only a succeeded payment can be refunded.' },
  'payment-not-disputable': { status: 409, title: 'Conflict', description: 'Only a succeeded payment can be disputed.' },
  'payment-disputed': { status: 409, title: 'Conflict', description: 'The payment is disputed already (another dispute).' },
  'invalid-gateway-event': {
    status: 400,
    title: 'Bad Request',
    description: "A payment gateway's event whose signature does not verify against the environment's webhook secret (or is too old): nothing was recorded.",
  },
  'invoice-not-found': { status: 422, title: 'Unprocessable Content', description: 'No invoice with this id exists in the environment.' },
  'invoice-not-payable': { status: 422, title: 'Unprocessable Content', description: 'The invoice cannot be paid: a credit note, or nothing is due.' },
  'amount-exceeds-total-due': { status: 422, title: 'Unprocessable Content', description: "The amount is more than the invoice's total due." },
  'unknown-payment-provider': { status: 422, title: 'Unprocessable Content', description: 'No such payment provider; the detail lists the known ones.' },
  'payment-provider-not-enabled': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The payment provider is not enabled in this environment (POST /paymentproviders/enable).',
  },
  'payment-provider-not-for-customers': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'A customer pays only with a provider that takes their money (not manual, which records money moved elsewhere).',
  },
  'refund-exceeds-payment': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The refund is more than what is left to refund of the payment (the detail names it).',
  },
};
