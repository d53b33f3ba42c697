import { ProblemType } from '@billing/platform';

/** Every problem code the invoicing context raises (served at /problems/<code>). */
export const INVOICING_PROBLEMS: Record<string, ProblemType> = {
  'customer-discount-ended': {
    status: 409,
    title: 'Conflict',
    description:
      "A subscription invoice was composed with a customer's once discount that has ended meanwhile (used by another invoice, or ended early); the billing engine composes it again.",
  },
  'invoice-exists': { status: 409, title: 'Conflict', description: 'An invoice with this id already exists.' },
  'invoice-not-draft': {
    status: 409,
    title: 'Invoice is not a draft',
    description: 'Only draft invoices can be updated; a booked invoice is final (credit it instead).',
  },
  'invoice-already-booked': { status: 409, title: 'Invoice already booked', description: 'The invoice is already booked and has its number.' },
  'invoice-not-booked': {
    status: 409,
    title: 'Invoice not booked',
    description:
      'Settlements can only be added to booked invoices, and only booked invoices can be credited (duplicate with reverse true), voided or marked uncollectible.',
  },
  'invoice-paid': {
    status: 409,
    title: 'Invoice has settlements',
    description:
      'An invoice that a payment (even one refunded since) or a credit note has settled, wholly or in part, cannot be voided: credit it instead (POST /invoices/{id}/duplicate with reverse true).',
  },
  'invoice-payment-under-way': {
    status: 409,
    title: 'A payment of the invoice is under way',
    description:
      'The invoice cannot be voided while a payment of it waits for its outcome, or after one succeeded whose settlement is still on its way: void it once the payment failed, or credit it once it settled.',
  },
  'invoice-void': {
    status: 409,
    title: 'Invoice is void',
    description: 'A void invoice is closed: nothing is settled on it, it is not credited or marked uncollectible. Duplicate it to bill again.',
  },
  'invoice-is-credit-note': {
    status: 409,
    title: 'Credit note',
    description: 'Only invoices are voided or marked uncollectible; a credit note is neither collected nor voided.',
  },
  'invoice-nothing-due': {
    status: 409,
    title: 'Nothing due',
    description: 'An invoice with nothing due (settled or over-settled) has nothing to collect and is not marked uncollectible.',
  },
  'invoice-has-no-lines': {
    status: 409,
    title: 'Invoice has no lines',
    description: 'An invoice without lines cannot be booked: it would consume a number for a document that bills nothing.',
  },
  'invoice-total-negative': {
    status: 409,
    title: 'Invoice total is negative',
    description:
      'PUT /invoices/{id}/book refuses an invoice (not a credit note) whose lines add up to less than 0 (pointer /items): an INV- document bills, and what a customer is owed is a credit note. Only the billing engine books a subscription invoice below 0, whose total moves to the credit balance.',
  },
  'credit-exceeds-invoice': {
    status: 409,
    title: 'Credit exceeds the invoice',
    description:
      'The credit notes of an invoice may never together exceed its total. The detail names what is still creditable; a fully credited invoice cannot be reversed again.',
  },
  'credit-note-wrong-sign': {
    status: 409,
    title: 'Credit note does not credit',
    description: "A credit note must reduce the invoice it credits: its total must have the opposite sign of the invoice's total.",
  },
  'credit-note-cannot-be-reversed': {
    status: 409,
    title: 'Credit note cannot be reversed',
    description: 'Only invoices can be credited; a credit note can be duplicated but not reversed or credited.',
  },
  'credit-exceeds-creditable': {
    status: 422,
    title: 'Credit exceeds what is creditable',
    description:
      'A credit note (POST /invoices/{id}/credit-notes) may not credit more than is left creditable on the invoice: its total less what its credit notes credit already. The detail names what is left.',
  },
  'credit-exceeds-line': {
    status: 422,
    title: 'Credit exceeds the line',
    description: "A credit of a line may not exceed what is left of the line's quantity or amount after its earlier credits.",
  },
  'refund-exceeds-paid': {
    status: 422,
    title: 'Refund exceeds what was paid',
    description:
      "A credit note's refundAmount may not exceed what the invoice's payments paid, less what was refunded and what other credit notes are still refunding.",
  },
  'credit-note-unallocated': {
    status: 422,
    title: "Credit note's amounts do not add up",
    description:
      'A credit note first reduces what is still due on the invoice; the rest of its total must be allocated exactly to refundAmount, creditAmount and outOfBandAmount.',
  },
  'unsupported-currency': { status: 422, title: 'Unsupported currency', description: 'The currency must be a supported three-letter ISO 4217 code.' },
  'discount-exceeds-line-amount': {
    status: 422,
    title: 'Discount exceeds line amount',
    description: 'A fixed line discount must not exceed the line amount (unitAmount × quantity).',
  },
  'unknown-tax-code': {
    status: 422,
    title: 'Unknown tax code',
    description: "A line names a tax code that is not in the environment's register (see /tax-codes).",
  },
  'tax-code-exists': {
    status: 409,
    title: 'Tax code exists',
    description: 'A tax code with this code already exists in the environment; update it with PUT /tax-codes/{code}.',
  },
  'customer-handle-taken': {
    status: 409,
    title: 'Customer handle taken',
    description: 'Another customer of the environment has this handle; handles are unique per environment.',
  },
  'customer-archived': {
    status: 409,
    title: 'Customer archived',
    description: 'The customer is archived (deleted): it can be read but not changed or deleted again.',
  },
  'customer-in-use': {
    status: 409,
    title: 'Customer in use',
    description: 'The customer has a subscription that has not ended or a booked invoice with an amount still due: it cannot be deleted yet.',
  },
  'customer-exists': { status: 409, title: 'Conflict', description: 'A customer with this id already exists.' },
  'customer-balance-insufficient': {
    status: 409,
    title: 'Credit balance insufficient',
    description:
      "A positive balance transaction (an amount owed) may take at most the customer's available credit in its currency: the ledger never owes. Bill what is owed beyond it on an invoice.",
  },
};
