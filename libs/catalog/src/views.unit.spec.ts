import { foldEvents } from '@billing/shared-kernel';
import { priceCreated } from '@billing/testing/price-events';
import { PriceEvent, priceEvolver, ProductEvent, productEvolver } from './domain';
import { priceViewOf, productViewOf } from './views';

const priceId = '7d0c3a52-6a1e-4c1b-9f55-2f3c4a5b6c7d';
const T0 = '2024-07-01T10:00:00.000Z';
const T1 = '2024-07-02T11:30:00.000Z';

const created: PriceEvent = priceCreated(priceId, T0);
const priceView = (...events: PriceEvent[]) => priceViewOf(foldEvents(priceEvolver, events));

describe('the Price view', () => {
  it('is null while the price does not exist', () => {
    expect(priceView()).toBeNull();
  });

  it('of an active price without description: the Price JSON without description (never null)', () => {
    expect(priceView(created)).toEqual({
      id: priceId,
      name: 'Pro monthly',
      priceModel: 'fee',
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'advance',
      pricing: { eur: { unitAmount: 1500 } },
      productId: null,
      archived: false,
      archivedAt: null,
      createdAt: T0,
      updatedAt: T0,
    });
  });

  it('of a one_time price with a description: no term, the description', () => {
    const oneTime: PriceEvent = {
      ...created,
      data: { ...created.data, purchase: 'one_time', termCount: null, termUnit: null, description: 'setup' },
    } as PriceEvent;
    const view = priceView(oneTime);
    expect(view).toMatchObject({ purchase: 'one_time', description: 'setup' });
    expect(view).not.toHaveProperty('termCount');
    expect(view).not.toHaveProperty('termUnit');
  });

  it('of an archived price: archived is true with archivedAt', () => {
    expect(priceView(created, { type: 'PriceArchived', schemaVersion: 1, data: { priceId, archivedAt: T1 } })).toMatchObject({
      archived: true,
      archivedAt: T1,
      updatedAt: T1,
    });
  });
});

describe('the Product view', () => {
  const productCreated: ProductEvent = {
    type: 'ProductCreated',
    schemaVersion: 1,
    data: { productId: priceId, name: 'Widget', description: 'blue', createdAt: T0 },
  };

  it('is null while the product does not exist, then shows it', () => {
    expect(productViewOf(foldEvents(productEvolver, []))).toBeNull();
    expect(productViewOf(foldEvents(productEvolver, [productCreated]))).toEqual({ id: priceId, name: 'Widget', description: 'blue', createdAt: T0 });
  });
});
