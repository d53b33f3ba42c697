import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { comparePositions, EventStore, queryRows, RecordedEvent, StreamRef } from '@billing/event-store';
import { DomainEvent } from '@billing/shared-kernel';
import { priceCreated as aPriceCreated } from '@billing/testing/price-events';
import { append as appended, projectionSpec, SPEC_TIME } from '@billing/testing/projection-spec';
import { PriceCreated, PriceEvent, PriceUpdated, ProductCreated } from '../domain';
import { priceStream, productStream } from '../streams';
import { catalogProjection } from './catalog.projection';

/**
 * The catalog.read-model projection against real Postgres (the app's
 * migrations, through the migrated template database): events in, rows out,
 * set-wise, and the same rows whatever the batches.
 */
const spec = projectionSpec(catalogProjection);

const T0 = SPEC_TIME;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const priceCreated = (priceId: string, overrides: Partial<PriceCreated['data']> = {}) => aPriceCreated(priceId, T0, overrides);
const priceUpdated = (priceId: string, changes: Omit<PriceUpdated['data'], 'priceId' | 'updatedAt'>, updatedAt: string): PriceUpdated => ({
  type: 'PriceUpdated',
  schemaVersion: 1,
  data: { priceId, ...changes, updatedAt },
});
const priceArchived = (priceId: string, archivedAt: string): PriceEvent => ({ type: 'PriceArchived', schemaVersion: 1, data: { priceId, archivedAt } });
const productCreated = (productId: string, name: string): ProductCreated => ({
  type: 'ProductCreated',
  schemaVersion: 1,
  data: { productId, name, description: null, createdAt: T0 },
});

/** Appends to a stream (continuing it) and returns the recorded events, with their real log positions. */
const append = (stream: StreamRef, events: DomainEvent[]): Promise<RecordedEvent[]> => spec.append(appended(stream, events));

/** Every event of these streams in log order, as the projector would deliver them. */
async function inLogOrder(streams: StreamRef[]): Promise<RecordedEvent[]> {
  const store = new EventStore(spec.dataSource());
  const events = (await Promise.all(streams.map((stream) => store.readStream(stream)))).flat();
  return events.sort(comparePositions);
}

/** Applies each batch in its own transaction, as the runner does; returns the SQL statements each batch ran. */
async function applyBatches(batches: RecordedEvent[][]): Promise<string[][]> {
  const statements: string[][] = [];
  for (const batch of batches) {
    const ran: string[] = [];
    await spec.apply([batch], (tx, work) => counting(tx, ran, work));
    statements.push(ran);
  }
  return statements;
}

/** Counts every statement the transaction's connection runs (TypeORM's and prepared ones alike) while `work` runs. */
async function counting(tx: EntityManager, ran: string[], work: () => Promise<void>): Promise<void> {
  const connection = (tx.queryRunner as unknown as { databaseConnection: { query: (...args: unknown[]) => unknown } }).databaseConnection;
  const query = connection.query;
  connection.query = (config: unknown, ...rest: unknown[]) => {
    const text = typeof config === 'string' ? config : (config as { text: string }).text;
    ran.push(text.trim().split(/\s+/)[0].toLowerCase());
    return query.call(connection, config, ...rest);
  };
  try {
    await work();
  } finally {
    connection.query = query;
  }
}

async function rows(environmentId: string) {
  return {
    prices: await queryRows(
      spec.dataSource().manager,
      `select id, product_id, archived, position::text, version, state, view from prices where environment_id = $1 order by id`,
      [environmentId],
    ),
    products: await queryRows(
      spec.dataSource().manager,
      `select id, position::text, version, state, view from products where environment_id = $1 order by id`,
      [environmentId],
    ),
  };
}

/** The rows of a kept price (created with a product and notes, then renamed) and of a one-time price archived in its creating append. */
function expectedPrices(kept: string, archived: string, productId: string, position: (id: string) => string) {
  return [
    {
      id: kept,
      product_id: productId,
      archived: false,
      position: position(kept),
      version: 2,
      state: {
        status: 'active',
        id: kept,
        name: 'Pro v2',
        description: null,
        priceModel: 'fee',
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
        pricing: { eur: { unitAmount: 1500 } },
        productId,
        createdAt: T0,
        updatedAt: at(1),
        archivedAt: null,
      },
      view: {
        id: kept,
        name: 'Pro v2',
        priceModel: 'fee',
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
        pricing: { eur: { unitAmount: 1500 } },
        productId,
        archived: false,
        archivedAt: null,
        createdAt: T0,
        updatedAt: at(1),
      },
    },
    {
      id: archived,
      product_id: null,
      archived: true,
      position: position(archived),
      version: 2,
      state: expect.objectContaining({ status: 'archived', archivedAt: at(2), updatedAt: at(2) }),
      view: {
        id: archived,
        name: 'Pro monthly',
        priceModel: 'fee',
        purchase: 'one_time',
        billingTiming: 'advance',
        pricing: { eur: { unitAmount: 1500 } },
        productId: null,
        archived: true,
        archivedAt: at(2),
        createdAt: T0,
        updatedAt: at(2),
      },
    },
  ].sort((a, b) => a.id.localeCompare(b.id));
}

describe('catalog.read-model projection (Postgres): rows', () => {
  it('given created, updated and archived prices and a product, then one row each with the state, the view, the version and the creating position', async () => {
    const environmentId = randomUUID();
    const productId = randomUUID();
    const [kept, archived] = [randomUUID(), randomUUID()];
    await spec
      .given(
        appended(productStream(environmentId, productId), [productCreated(productId, 'Widget')]),
        appended(priceStream(environmentId, kept), [priceCreated(kept, { productId, description: 'notes' })]),
        appended(priceStream(environmentId, kept), [priceUpdated(kept, { name: 'Pro v2', description: null }, at(1))]),
        appended(priceStream(environmentId, archived), [
          priceCreated(archived, { purchase: 'one_time', termCount: null, termUnit: null }),
          priceArchived(archived, at(2)),
        ]),
      )
      .then(async (_query, { given }) => {
        const position = (id: string) => given.find((event) => event.streamId === id)!.globalPosition;
        expect(await rows(environmentId)).toEqual({
          prices: expectedPrices(kept, archived, productId, position),
          products: [
            {
              id: productId,
              position: position(productId),
              version: 1,
              state: { status: 'active', id: productId, name: 'Widget', description: null, createdAt: T0 },
              view: { id: productId, name: 'Widget', description: null, createdAt: T0 },
            },
          ],
        });
      });
  });

  it('ignores events of other stream types in its batch', async () => {
    const environmentId = randomUUID();
    const events = await append({ environmentId, streamType: 'something-else', streamId: randomUUID() }, [
      { type: 'PriceCreated', schemaVersion: 1, data: {} },
    ]);
    expect(await applyBatches([events])).toEqual([[]]);
    expect(await rows(environmentId)).toEqual({ prices: [], products: [] });
  });
});

describe('catalog.read-model projection (Postgres): set-wise batches', () => {
  it('a batch touching one price several times writes its latest state in one statement, without reading rows', async () => {
    const environmentId = randomUUID();
    const id = randomUUID();
    const stream = priceStream(environmentId, id);
    const created = await append(stream, [priceCreated(id)]);
    const later = [
      ...(await append(stream, [priceUpdated(id, { name: 'second' }, at(1))])),
      ...(await append(stream, [priceUpdated(id, { pricing: { eur: { unitAmount: 1700 } }, description: 'd' }, at(2))])),
      ...(await append(stream, [priceUpdated(id, { name: 'fourth', termCount: 3 }, at(3))])),
      ...(await append(stream, [priceArchived(id, at(4))])),
    ];

    const [statements] = await applyBatches([[...created, ...later]]);

    expect(statements).toEqual(['insert']);
    const [row] = (await rows(environmentId)).prices;
    expect(row).toMatchObject({ version: 5, archived: true, position: created[0].globalPosition });
    expect(row.view).toMatchObject({
      name: 'fourth',
      termCount: 3,
      description: 'd',
      pricing: { eur: { unitAmount: 1700 } },
      archivedAt: at(4),
      updatedAt: at(4),
    });
  });

  it('a batch continuing many streams reads their stored state in one select and writes them in one upsert per table', async () => {
    const environmentId = randomUUID();
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const products = Array.from({ length: 5 }, () => randomUUID());
    const first: RecordedEvent[] = [];
    for (const id of ids) first.push(...(await append(priceStream(environmentId, id), [priceCreated(id)])));
    const second: RecordedEvent[] = [];
    for (const [i, id] of ids.entries()) {
      second.push(
        ...(await append(priceStream(environmentId, id), [priceUpdated(id, { name: `renamed ${i}` }, at(1)), priceUpdated(id, { termCount: i + 1 }, at(2))])),
      );
    }
    for (const id of products) second.push(...(await append(productStream(environmentId, id), [productCreated(id, 'p')])));

    const statements = await applyBatches([first, second.sort(comparePositions)]);

    expect(statements).toEqual([['insert'], ['select', 'insert', 'insert']]);
    const { prices, products: productRows } = await rows(environmentId);
    expect(prices).toHaveLength(20);
    expect(productRows).toHaveLength(5);
    for (const [i, id] of ids.entries()) {
      expect(prices.find((row) => row.id === id)).toMatchObject({
        version: 3,
        view: { name: `renamed ${i}`, termCount: i + 1, updatedAt: at(2), createdAt: T0 },
      });
    }
  });
});

describe('catalog.read-model projection (Postgres): rebuilds', () => {
  it('a rebuild (reset, then one batch) equals the read model built event by event and in any batches', async () => {
    const environmentId = randomUUID();
    const prices = Array.from({ length: 6 }, () => randomUUID());
    const products = Array.from({ length: 3 }, () => randomUUID());
    const streams = [...prices.map((id) => priceStream(environmentId, id)), ...products.map((id) => productStream(environmentId, id))];
    // Interleaved history: creations, several updates, archives, products in between.
    for (const [i, id] of products.entries()) await append(productStream(environmentId, id), [productCreated(id, `product ${i}`)]);
    for (const [i, id] of prices.entries()) await append(priceStream(environmentId, id), [priceCreated(id, { productId: products[i % products.length] })]);
    for (let round = 1; round <= 3; round++) {
      for (const [i, id] of prices.entries()) {
        if (i % 3 === 0 && round === 3) await append(priceStream(environmentId, id), [priceArchived(id, at(round))]);
        else
          await append(priceStream(environmentId, id), [
            priceUpdated(id, { name: `round ${round} of ${i}`, description: round % 2 ? 'odd' : null }, at(round)),
          ]);
      }
    }
    const events = await inLogOrder(streams);

    await applyBatches(events.map((event) => [event]));
    const incremental = await rows(environmentId);
    expect(incremental.prices).toHaveLength(prices.length);
    expect(incremental.products).toHaveLength(products.length);

    await spec.dataSource().transaction((tx) => catalogProjection.reset(tx));
    expect(await rows(environmentId)).toEqual({ prices: [], products: [] });
    await applyBatches([events]);
    expect(await rows(environmentId)).toEqual(incremental);

    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: events.length - 1 }), { maxLength: 8 }), async (cuts) => {
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), events.length];
        await spec.dataSource().transaction((tx) => catalogProjection.reset(tx));
        await applyBatches(bounds.slice(1).map((end, i) => events.slice(bounds[i], end)));
        expect(await rows(environmentId)).toEqual(incremental);
      }),
      { numRuns: 15 },
    );
  });
});
