import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { EventStore, ProjectionRunner } from '@billing/event-store';
import { metadataAt } from '@billing/testing';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import { customerEvolver, decideCreateCustomer, taxCodesOf, upcastTaxCodeEvent, withCurrentTax } from '../domain';
import { TAX_CODE_STREAM, customerStream, invoiceStream, taxCodeStream } from '../streams';
import { toInvoiceView } from './invoice-view';
import { INVOICING_PROJECTION, invoicingProjection } from './invoicing.projection';
import { toTaxCodeView } from './tax-code-view';
import { History } from '../../../../test/invoicing/invoice-history';

/**
 * The `invoicing.read-model` projection against real Postgres: given events
 * (made by the real deciders and appended to the real event store), then
 * rows. Batches are cut by hand through the runner's batch size.
 */

// One log for the whole file: later tests catch the runner up from where earlier ones left it, and a rebuild replays it all.
const spec = projectionSpec(invoicingProjection, { resetBeforeEach: false });
let dataSource: DataSource;
let store: EventStore;
let runner: ProjectionRunner;
let history: History;

/** Applies everything not applied yet, in batches of `batchSize` events. */
async function catchUp(batchSize = 10_000): Promise<void> {
  while ((await runner.runBatch(INVOICING_PROJECTION, batchSize)) !== 0);
}

/** Runs one batch of at most `batchSize` events with a connection that counts the statements sent. */
async function countedBatch(batchSize: number): Promise<{ events: number; statements: number }> {
  let statements = 0;
  const counting: typeof invoicingProjection = {
    ...invoicingProjection,
    applyBatch: (events, tx) =>
      invoicingProjection.applyBatch(
        events,
        new Proxy(tx, {
          get: (target, property) =>
            property === 'query'
              ? (...args: Parameters<EntityManager['query']>) => {
                  statements++;
                  return target.query(...args);
                }
              : Reflect.get(target, property),
        }),
      ),
  };
  const countingRunner = new ProjectionRunner(dataSource, store);
  countingRunner.registerProjection(counting);
  const events = (await countingRunner.runBatch(INVOICING_PROJECTION, batchSize)) ?? 0;
  return { events, statements };
}

async function invoiceRow(environmentId: string, id: string) {
  const [row] = await dataSource.query(
    `select status, type, settlement_status, customer_id, handle, version, view, state::jsonb as state, hosted_link_version, customer_record_id
       from invoices where environment_id = $1 and id = $2`,
    [environmentId, id],
  );
  return row;
}

async function taxCodeRow(environmentId: string, code: string) {
  const [row] = await dataSource.query(`select stream_id, rate::text, taxable, version, view, state from tax_codes where environment_id = $1 and code = $2`, [
    environmentId,
    code,
  ]);
  return row;
}

/** What the row of an invoice must hold: its fold, shown (a draft) at its codes' current rates. */
function expectedInvoiceRow(environmentId: string, id: string) {
  const state = history.invoice(environmentId, id);
  if (state.status === 'none') throw new Error(`no invoice ${id}`);
  const view = toInvoiceView(withCurrentTax(state, history.register(environmentId, taxCodesOf(state))));
  return {
    status: view.status,
    type: view.type,
    settlement_status: view.settlementStatus,
    customer_id: view.customer.id,
    handle: view.handle,
    version: history.version(invoiceStream(environmentId, id)),
    view,
    state,
    hosted_link_version: state.hostedLinkVersion ?? 0,
    customer_record_id: state.customerId ?? null,
  };
}

async function snapshot() {
  return {
    // The state is JSON text: the same document may be spelt in another key order (a command's state written ahead).
    invoices: (await dataSource.query(`select * from invoices order by environment_id, id`)).map((row: { state: string | null }) => ({
      ...row,
      state: row.state === null ? null : JSON.parse(row.state),
    })),
    taxCodes: await dataSource.query(`select * from tax_codes order by environment_id, code`),
  };
}

beforeAll(async () => {
  dataSource = spec.dataSource();
  store = new EventStore(dataSource);
  store.registerUpcaster(TAX_CODE_STREAM, upcastTaxCodeEvent);
  runner = new ProjectionRunner(dataSource, store);
  runner.registerProjection(invoicingProjection);
  history = new History(store);
});

describe('invoicing.read-model projection (Postgres): rows', () => {
  it('given one batch touching an invoice six times and its tax code twice, then one row each: the fold at the last version, written once', async () => {
    await catchUp();
    const env = randomUUID();
    await history.createTaxCode(env, 'VAT', 0.25);
    const id = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000, taxCode: 'VAT' }]);
    await history.updateInvoice(env, id, [
      { quantity: 2, unitAmount: 1000, taxCode: 'VAT' },
      { quantity: 1, unitAmount: 500 },
    ]);
    await history.updateTaxCode(env, 'VAT', { rate: 0.2 });
    await history.book(env, id, 'INV-000001');
    await history.settle(env, id, 1000);
    await history.settle(env, id, 1900);
    await history.duplicate(env, id, false);

    const applied = await countedBatch(10_000);
    expect(applied.events).toBe(9);

    expect(await invoiceRow(env, id)).toEqual(expectedInvoiceRow(env, id));
    expect(await invoiceRow(env, id)).toMatchObject({
      version: 6,
      status: 'booked',
      handle: 'INV-000001',
      settlement_status: 'settled',
      view: { totalVat: 400, totalInclVat: 2900 },
    });
    const taxCode = history.taxCode(env, 'VAT');
    if (taxCode.status !== 'active') throw new Error('expected a tax code');
    expect(await taxCodeRow(env, 'VAT')).toEqual({
      stream_id: taxCodeStream(env, 'VAT').streamId,
      rate: '0.2000',
      taxable: true,
      version: 2,
      view: toTaxCodeView(taxCode),
      state: taxCode,
    });
  });

  it('given a tax code’s new rate, then the drafts naming it are re-rendered at it (their version kept); other drafts, booked invoices and credit notes are not', async () => {
    await catchUp();
    const env = randomUUID();
    await history.createTaxCode(env, 'STD', 0.25);
    await history.createTaxCode(env, 'RED', 0.1);
    const naming = await history.createInvoice(env, [
      { quantity: 1, unitAmount: 1000, taxCode: 'STD' },
      { quantity: 1, unitAmount: 100, taxCode: 'RED' },
    ]);
    const other = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000, taxCode: 'RED' }]);
    const booked = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000, taxCode: 'STD' }]);
    await history.book(env, booked, 'INV-000001');
    const creditNote = await history.duplicate(env, booked, true);
    const elsewhere = randomUUID();
    await history.createTaxCode(elsewhere, 'STD', 0.25);
    const sameCodeElsewhere = await history.createInvoice(elsewhere, [{ quantity: 1, unitAmount: 1000, taxCode: 'STD' }]);
    await catchUp();
    const before = await snapshot();

    await history.updateTaxCode(env, 'STD', { rate: 0.2 });
    const applied = await countedBatch(10_000);

    expect(applied.events).toBe(1);
    expect(await invoiceRow(env, naming)).toMatchObject({
      version: 1,
      view: { totalVat: 210, totalInclVat: 1310, items: [{ taxAmount: 200, tax: { taxRate: 0.2 } }, { taxAmount: 10 }] },
    });
    expect(await invoiceRow(env, naming)).toEqual(expectedInvoiceRow(env, naming));
    const unchanged = (rows: { id: string }[]) => rows.filter((row) => [other, booked, creditNote, sameCodeElsewhere].includes(row.id));
    expect(unchanged((await snapshot()).invoices)).toEqual(unchanged(before.invoices));
    expect(await invoiceRow(env, creditNote)).toMatchObject({ view: { totalVat: -250 } });
  });
});

describe('invoicing.read-model projection (Postgres): other streams', () => {
  it('ignores a customer’s stream in its batch (customers have a projection of their own): no invoice or tax code row', async () => {
    const env = randomUUID();
    const customerId = randomUUID();
    const created = decideCreateCustomer(
      { customerId, handle: 'acme', input: { name: 'Acme' } },
      customerEvolver.initialState(),
      metadataAt('2026-01-15T10:00:00.000Z'),
    );
    await spec.given(append(customerStream(env, customerId), created)).then(async (query) => {
      const counts = `select (select count(*) from invoices where environment_id = $1)::int as invoices, (select count(*) from tax_codes where environment_id = $1)::int as tax_codes`;
      expect(await query(counts, [env])).toEqual([{ invoices: 0, tax_codes: 0 }]);
    });
  });
});

describe('invoicing.read-model projection (Postgres): rows written ahead', () => {
  it('given rows a command wrote ahead, then they equal the projection’s own, no batch takes one back, and a draft naming tax codes is never written ahead', async () => {
    await catchUp();
    const env = randomUUID();
    await history.createTaxCode(env, 'VAT', 0.25);
    const plain = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000 }]);
    await history.updateInvoice(env, plain, [{ quantity: 3, unitAmount: 1000 }]);
    const taxed = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000, taxCode: 'VAT' }]);
    const ahead = invoicingProjection.writeAhead!;
    expect(ahead.row(invoiceStream(env, taxed), history.invoice(env, taxed), 1)).toBeNull();
    const row = ahead.row(invoiceStream(env, plain), history.invoice(env, plain), 2)!;
    await ahead.write([row], dataSource.manager);
    expect(await invoiceRow(env, plain)).toEqual(expectedInvoiceRow(env, plain));

    // The projection's first batch (the tax code, the invoice at version 1) leaves the row at version 2.
    await runner.runBatch(INVOICING_PROJECTION, 2);
    expect(await invoiceRow(env, plain)).toEqual(expectedInvoiceRow(env, plain));
    await catchUp(1);
    expect(await invoiceRow(env, plain)).toEqual(expectedInvoiceRow(env, plain));
    // A row written ahead again at the version the projection wrote changes nothing; at an older one neither.
    await ahead.write([ahead.row(invoiceStream(env, plain), history.invoice(env, plain), 1)!], dataSource.manager);
    expect(await invoiceRow(env, plain)).toEqual(expectedInvoiceRow(env, plain));
    expect(await invoiceRow(env, taxed)).toEqual(expectedInvoiceRow(env, taxed));
  });

  it('given rows a command wrote ahead at the version of the batch’s last event, then the batch leaves them untouched (not written again) and writes the rows behind', async () => {
    await catchUp();
    const env = randomUUID();
    const created = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000 }]);
    const updated = await history.createInvoice(env, [{ quantity: 1, unitAmount: 2000 }]);
    await history.updateInvoice(env, updated, [{ quantity: 2, unitAmount: 2000 }]);
    const behind = await history.createInvoice(env, [{ quantity: 1, unitAmount: 3000 }]);
    await history.updateInvoice(env, behind, [{ quantity: 4, unitAmount: 3000 }]);
    const ahead = invoicingProjection.writeAhead!;
    await ahead.write(
      [
        ahead.row(invoiceStream(env, created), history.invoice(env, created), 1)!,
        ahead.row(invoiceStream(env, updated), history.invoice(env, updated), 2)!,
        // Written ahead at version 1 of 2 (a later command's write ahead failed): the batch must bring it to version 2.
        ahead.row(invoiceStream(env, behind), history.invoiceAt(env, behind, 1), 1)!,
      ],
      dataSource.manager,
    );
    // A row's xmin changes whenever a statement writes it, even with the same values.
    const xmin = async (id: string) => (await dataSource.query(`select xmin::text as x from invoices where environment_id = $1 and id = $2`, [env, id]))[0].x;
    const before = { created: await xmin(created), updated: await xmin(updated), behind: await xmin(behind) };

    await catchUp();

    expect({ created: await xmin(created), updated: await xmin(updated) }).toEqual({ created: before.created, updated: before.updated });
    expect(await xmin(behind)).not.toEqual(before.behind);
    for (const id of [created, updated, behind]) expect(await invoiceRow(env, id)).toEqual(expectedInvoiceRow(env, id));
  });
});

describe('invoicing.read-model projection (Postgres): statements per batch', () => {
  it('sends the same few statements for a batch of 181 events over 180 invoices as for one of 4 events: no round trip per event or per row', async () => {
    /**
     * A measured batch of every kind of work: a rate change repricing drafts that have no event in the
     * batch (found by query), drafts updated naming a code the batch does not touch (its register read),
     * invoices booked and settled. `n` of each.
     */
    async function measuredBatch(n: number) {
      await catchUp();
      const env = randomUUID();
      await history.createTaxCode(env, 'A', 0.1);
      await history.createTaxCode(env, 'B', 0.1);
      const repriced: string[] = [];
      const updated: string[] = [];
      const booked: string[] = [];
      for (let i = 0; i < n; i++) {
        repriced.push(await history.createInvoice(env, [{ quantity: 1, unitAmount: 100 + i, taxCode: 'A' }]));
        updated.push(await history.createInvoice(env, [{ quantity: 1, unitAmount: 100 + i, taxCode: 'B' }]));
        booked.push(await history.createInvoice(env, [{ quantity: 1, unitAmount: 100 + i, taxCode: 'B' }]));
      }
      await catchUp();
      await history.updateTaxCode(env, 'A', { rate: 0.2 });
      for (let i = 0; i < n; i++) {
        await history.updateInvoice(env, updated[i], [{ quantity: 2, unitAmount: 100 + i, taxCode: 'B' }]);
        await history.book(env, booked[i], `INV-${String(i + 1).padStart(6, '0')}`);
        await history.settle(env, booked[i], 10);
      }
      const batch = await countedBatch(10_000);
      for (const id of [repriced[0], updated[0], booked[0], repriced[n - 1], updated[n - 1], booked[n - 1]])
        expect(await invoiceRow(env, id)).toEqual(expectedInvoiceRow(env, id));
      return batch;
    }

    const small = await measuredBatch(1);
    const large = await measuredBatch(60);
    expect([small.events, large.events]).toEqual([4, 181]);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(7);
  });
});

describe('invoicing.read-model projection (Postgres): rebuilds', () => {
  it('rebuilding from zero gives the same rows as applying every event in its own batch, and as batches of 7', async () => {
    await catchUp();
    // A varied log across two environments: rate and taxability changes between the invoices' own events,
    // copies, credit notes applied to their invoices, settlements.
    for (const env of [randomUUID(), randomUUID()]) {
      await history.createTaxCode(env, 'STD', 0.24);
      await history.createTaxCode(env, 'RED', 0.14, true);
      const a = await history.createInvoice(env, [
        { quantity: 2.5, unitAmount: 1999, taxCode: 'STD', discount: { percentage: 10 } },
        { quantity: 1, unitAmount: 300, taxCode: 'RED' },
      ]);
      const b = await history.createInvoice(env, [{ quantity: 1, unitAmount: 5000, taxCode: 'STD' }]);
      await history.updateTaxCode(env, 'STD', { rate: 0.255 });
      await history.updateInvoice(env, b, [
        { quantity: 3, unitAmount: 5000, taxCode: 'STD' },
        { quantity: 1, unitAmount: 10, discount: { amount: 5 } },
      ]);
      await history.book(env, a, 'INV-000001');
      const copy = await history.duplicate(env, a, false);
      const credit = await history.duplicate(env, a, true);
      await history.updateTaxCode(env, 'RED', { taxable: false });
      await history.settle(env, a, 2000);
      await history.book(env, credit, 'CN-000001');
      await history.updateTaxCode(env, 'STD', { rate: 0.2, description: 'lowered' });
      await history.updateInvoice(env, copy, [{ quantity: 1, unitAmount: 100, taxCode: 'RED' }]);
    }

    // incremental: one event per batch, from where the earlier tests left off
    await catchUp(1);
    const incremental = await snapshot();
    for (const stream of history.invoiceStreams()) {
      const row = incremental.invoices.find(
        (r: { environment_id: string; id: string }) => r.environment_id === stream.environmentId && r.id === stream.streamId,
      );
      expect({ id: stream.streamId, view: row?.view }).toEqual({ id: stream.streamId, view: expectedInvoiceRow(stream.environmentId, stream.streamId).view });
    }

    expect(await runner.rebuild(INVOICING_PROJECTION)).toBeGreaterThan(100);
    expect(await snapshot()).toEqual(incremental);

    await dataSource.transaction((tx) => invoicingProjection.reset(tx));
    await dataSource.query(`update projection_checkpoints set transaction_id = '0', global_position = 0 where name = $1`, [INVOICING_PROJECTION]);
    await catchUp(7);
    expect(await snapshot()).toEqual(incremental);
  });

  it('given rows written before the state was stored (state null), then the next batch folds them from their streams, once, and evolves them', async () => {
    await catchUp();
    const env = randomUUID();
    await history.createTaxCode(env, 'VAT', 0.25);
    const settled = await history.createInvoice(env, [{ quantity: 1, unitAmount: 1000, taxCode: 'VAT' }]);
    await history.book(env, settled, 'INV-000001');
    const draft = await history.createInvoice(env, [{ quantity: 1, unitAmount: 400, taxCode: 'VAT' }]);
    await history.updateInvoice(env, draft, [{ quantity: 2, unitAmount: 400, taxCode: 'VAT' }]);
    await catchUp();
    await dataSource.query(`update invoices set state = null where environment_id = $1`, [env]);

    await history.settle(env, settled, 1250);
    await history.updateTaxCode(env, 'VAT', { rate: 0.1 });
    await catchUp();

    expect(await invoiceRow(env, settled)).toEqual(expectedInvoiceRow(env, settled));
    expect(await invoiceRow(env, draft)).toEqual(expectedInvoiceRow(env, draft));
    expect(await invoiceRow(env, draft)).toMatchObject({ version: 2, view: { totalVat: 80 } });
  });
});
