import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideBookInvoice, decideCreateInvoice, decideRotateHostedLink, decideVoidInvoice, invoiceEvolver, InvoiceEvent, InvoiceState } from '.';

const NOW = '2025-03-01T10:00:00.000Z';
const metaAt = (now: string = NOW): CommandMetadata => metadataAt(now);
const spec = deciderSpec(invoiceEvolver);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);

const customer = { id: 'cust-1', handle: 'c-1', name: 'Acme', billingAddress: null };
const created = decideCreateInvoice(
  { invoiceId: 'inv-1', customer, currency: 'eur', date: '2025-02-01', items: [{ quantity: 1, unitAmount: 1000 }], taxes: new Map() },
  given(),
  metaAt('2025-02-01T09:00:00.000Z'),
);
const booked = [...created, ...decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: new Map() }, given(...created), metaAt())];
const rotate = (state: InvoiceState) => decideRotateHostedLink({ invoiceId: 'inv-1' }, state, metaAt());

describe('decideRotateHostedLink', () => {
  it('given a booked invoice (link version 0), when its link is rotated, then InvoiceHostedLinkRotated with version 1', () => {
    spec
      .given(booked)
      .when(rotate)
      .then([{ type: 'InvoiceHostedLinkRotated', schemaVersion: 1, data: { invoiceId: 'inv-1', linkVersion: 1, rotatedAt: NOW } }]);
  });

  it('given a link rotated once, when rotated again, then version 2, and the state keeps the latest version', () => {
    const once = rotate(given(...booked));
    spec
      .given([...booked, ...once])
      .when(rotate)
      .then([{ type: 'InvoiceHostedLinkRotated', schemaVersion: 1, data: { invoiceId: 'inv-1', linkVersion: 2, rotatedAt: NOW } }]);
    expect(given(...booked, ...once)).toMatchObject({ hostedLinkVersion: 1, updatedAt: NOW });
  });

  it('given a void invoice, when its link is rotated, then rotated (its page still shows it void)', () => {
    const voided = decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, given(...booked), metaAt());
    spec
      .given([...booked, ...voided])
      .when(rotate)
      .then([{ type: 'InvoiceHostedLinkRotated', schemaVersion: 1, data: { invoiceId: 'inv-1', linkVersion: 1, rotatedAt: NOW } }]);
  });

  it('given a draft, when its link is rotated, then 409 invoice-not-booked (a draft has no link)', () => {
    spec.given(created).when(rotate).thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it('given no invoice, when a link is rotated, then 404', () => {
    spec.given([]).when(rotate).thenThrows({ kind: 'not_found' });
  });
});
