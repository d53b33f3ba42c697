import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideRequestInvoiceEmail, invoiceEmailRequestEvolver } from './invoice-email-request';

const T0 = '2026-02-01T00:00:00.000Z';
const meta = metadataAt(T0);
const spec = deciderSpec(invoiceEmailRequestEvolver);
const invoiceId = '4a1c6f0e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';

describe('requesting an invoice e-mail', () => {
  it.each([
    [undefined, null],
    [null, null],
    ['billing@example.com', 'billing@example.com'],
  ])('given a booked invoice, when asked with to=%j: one request to %j', (to, recorded) => {
    spec
      .given([])
      .when((state) => decideRequestInvoiceEmail({ invoiceId, to, booked: true }, state, meta))
      .then([{ type: 'InvoiceEmailRequested', schemaVersion: 1, data: { invoiceId, to: recorded, requestedAt: T0 } }]);
  });

  it('given earlier requests, when asked again: another request (each one sends once)', () => {
    const earlier = decideRequestInvoiceEmail({ invoiceId, to: undefined, booked: true }, invoiceEmailRequestEvolver.initialState(), meta);
    spec
      .given([...earlier, ...earlier])
      .when((state) => decideRequestInvoiceEmail({ invoiceId, to: undefined, booked: true }, state, meta))
      .then(earlier);
  });

  it('given a draft: 409 invoice-not-booked', () => {
    spec
      .given([])
      .when((state) => decideRequestInvoiceEmail({ invoiceId, to: undefined, booked: false }, state, meta))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it('refuses a `to` that is not an address at /to', () => {
    spec
      .given([])
      .when((state) => decideRequestInvoiceEmail({ invoiceId, to: 'nobody', booked: true }, state, meta))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/to' })] });
  });
});
