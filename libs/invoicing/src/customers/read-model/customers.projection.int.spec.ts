import { randomUUID } from 'node:crypto';
import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  Customer,
  CustomerEvent,
  customerEvolver,
  customerHandleEvolver,
  decideAdjustCustomerBalance,
  decideClaimCustomerHandle,
  decideCreateCustomer,
  decideUpdateCustomer,
} from '../../domain';
import { customerHandleStream, customerStream } from '../../streams';
import { customersProjection } from './customers.projection';

/** The `invoicing.customers` projection on real Postgres: customers and their balance entries made by the real deciders, then rows. */
const spec = projectionSpec(customersProjection);
const CREATED = '2026-01-15T10:00:00.000Z';
const LATER = '2026-01-18T16:45:00.000Z';
const customers = `select id, handle, email, status, created_at, version, state, invoice_customer from customers where environment_id = $1`;
const entries = `select id, customer_id, position::text, view from customer_balance_transactions where environment_id = $1 order by position`;

const create = (customerId: string) =>
  decideCreateCustomer(
    { customerId, handle: 'acme', input: { name: 'Acme Oy', email: 'billing@acme.example', currency: 'EUR' } },
    customerEvolver.initialState(),
    metadataAt(CREATED),
  );
const customer = (events: readonly CustomerEvent[]) => foldEvents(customerEvolver, events) as Customer;
const credit = (customerId: string, amount: number, history: readonly CustomerEvent[]) =>
  decideAdjustCustomerBalance({ customerId, entryId: randomUUID(), amount, currency: 'eur', description: 'goodwill' }, customer(history), metadataAt(LATER));

/** The customers row of a customer whose stream holds `events`. */
const row = (id: string, events: readonly CustomerEvent[]) => {
  const state = customer(events);
  return {
    id,
    handle: state.handle,
    email: state.email,
    status: state.status,
    created_at: new Date(CREATED),
    version: events.length,
    state,
    invoice_customer: { id, handle: state.handle, name: state.name, email: state.email, billingAddress: state.billingAddress },
  };
};

describe('invoicing.customers projection (Postgres)', () => {
  it('given a customer created, then one row: the filter columns, the fold and the customer as invoices name it; no balance entry', async () => {
    const env = randomUUID();
    const id = randomUUID();
    await spec.given(append(customerStream(env, id), create(id))).then(async (query) => {
      expect(await query(customers, [env])).toEqual([row(id, create(id))]);
      expect(row(id, create(id))).toMatchObject({ handle: 'acme', email: 'billing@acme.example', status: 'active', version: 1 });
      expect(await query(entries, [env])).toEqual([]);
    });
  });

  it('given a customer, when renamed and credited in a later batch, then the row continues its stored fold and the entry gets a row at its position', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const renamed = decideUpdateCustomer({ customerId: id, input: { handle: 'acme-fi', email: null } }, customer(create(id)), metadataAt(LATER));
    const credited = credit(id, -2500, [...create(id), ...renamed]);
    await spec
      .given(append(customerStream(env, id), create(id)))
      .when(append(customerStream(env, id), [...renamed, ...credited], LATER))
      .then(async (query, { when }) => {
        const history = [...create(id), ...renamed, ...credited];
        expect(await query(customers, [env])).toEqual([row(id, history)]);
        expect(customer(history)).toMatchObject({ handle: 'acme-fi', email: null, balances: { EUR: -2500 } });
        const { entryId } = credited[0].data;
        expect(await query(entries, [env])).toEqual([
          {
            id: entryId,
            customer_id: id,
            position: when[1].globalPosition,
            view: {
              id: entryId,
              amount: -2500,
              currency: 'EUR',
              description: 'goodwill',
              kind: 'adjustment',
              invoiceId: null,
              creditNoteId: null,
              balanceAfter: -2500,
              createdAt: LATER,
            },
          },
        ]);
      });
  });

  it('ignores the handle’s claim stream (customer-handle): no customer row', async () => {
    const env = randomUUID();
    const claimed = decideClaimCustomerHandle('acme', randomUUID(), customerHandleEvolver.initialState());
    await spec.given(append(customerHandleStream(env, 'acme'), claimed)).thenRows(customers, [env], []);
  });

  it('given a batch with two balance entries applied twice (a replayed batch), then one row per entry and the customer row of one pass', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const first = credit(id, -1000, create(id));
    const second = credit(id, 400, [...create(id), ...first]);
    const history = [...create(id), ...first, ...second];
    await spec
      .given(append(customerStream(env, id), create(id)), append(customerStream(env, id), [...first, ...second], LATER))
      .twice()
      .then(async (query) => {
        expect(await query(customers, [env])).toEqual([row(id, history)]);
        expect(customer(history).balances).toEqual({ EUR: -600 });
        const rows = await query<{ id: string; view: { balanceAfter: number } }>(entries, [env]);
        expect(rows.map((entry) => [entry.id, entry.view.balanceAfter])).toEqual([
          [first[0].data.entryId, -1000],
          [second[0].data.entryId, -600],
        ]);
      });
  });
});
