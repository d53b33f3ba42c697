import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CommandContext, CommandPath, EventStore, ProjectionRunner, queryRows } from '@billing/event-store';
import { createTestDataSource } from '@billing/testing';
import { takeInvoiceNumbers } from '../invoice-numbers';
import { ReserveInvoiceNumbersCommand } from './reserve-invoice-numbers.command';
import { ReserveInvoiceNumbersHandler } from './reserve-invoice-numbers.handler';

function context(): CommandContext {
  return {
    meta: { now: new Date('2026-01-02T03:04:05Z'), newId: randomUUID },
    metadata: { actor: 'system:billing-engine', requestId: null, correlationId: randomUUID(), causationId: null },
  };
}

describe('ReserveInvoiceNumbersCommand (Postgres)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let path: CommandPath;
  let handler: ReserveInvoiceNumbersHandler;

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
    const store = new EventStore(dataSource);
    path = new CommandPath(dataSource, store, new ProjectionRunner(dataSource, store));
    handler = new ReserveInvoiceNumbersHandler(path);
  });

  afterAll(async () => {
    await close();
  });

  const reserve = (environmentId: string, invoiceIds: readonly string[]) =>
    handler.execute(new ReserveInvoiceNumbersCommand(environmentId, 'invoice', invoiceIds, context()));
  const last = async (environmentId: string) =>
    (await queryRows<{ last: string }>(dataSource.manager, `select last::text from invoice_number_sequences where environment_id = $1`, [environmentId]))[0]
      ?.last;

  it('takes the next numbers of the counter in the unit of work, one per invoice in the order given', async () => {
    const environmentId = randomUUID();
    // A booking of its own took the first number.
    await path.run(context(), 'reject', (session) => takeInvoiceNumbers(session, environmentId, 'invoice', 1));
    const numbers = await path.atomically(() => reserve(environmentId, ['a', 'b', 'c']));
    expect([...numbers]).toEqual([
      ['a', { type: 'invoice', value: 2 }],
      ['b', { type: 'invoice', value: 3 }],
      ['c', { type: 'invoice', value: 4 }],
    ]);
    expect(await last(environmentId)).toBe('4');
  });

  it('gives the numbers back with the unit of work that rolls back: no gap', async () => {
    const environmentId = randomUUID();
    await path.atomically(() => reserve(environmentId, ['a']));
    const failed = path.atomically(async () => {
      await reserve(environmentId, ['b', 'c']);
      throw new Error('a booking failed');
    });
    await expect(failed).rejects.toThrow('a booking failed');
    expect(await last(environmentId)).toBe('1');
    expect((await path.atomically(() => reserve(environmentId, ['b']))).get('b')).toEqual({ type: 'invoice', value: 2 });
  });

  it('is one statement on the unit’s connection where the unit’s parts take no savepoint (the billing batch’s bookings)', async () => {
    const environmentId = randomUUID();
    await path.atomically(async (unit) => {
      const connection = (unit.manager.queryRunner as unknown as { databaseConnection: { query: (...args: unknown[]) => unknown } }).databaseConnection;
      const statements = jest.spyOn(connection, 'query');
      await unit.wholeOrNothing(() => reserve(environmentId, ['a', 'b']));
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
    });
    expect(await last(environmentId)).toBe('2');
  });

  it('refuses outside a unit of work, where its numbers would be taken for good before any booking', async () => {
    const environmentId = randomUUID();
    await expect(reserve(environmentId, ['a'])).rejects.toThrow('invoice numbers are reserved only inside the unit of work that books them');
    expect(await last(environmentId)).toBeUndefined();
  });
});
