import { randomUUID } from 'node:crypto';
import { CommandPath, EventStore } from '@billing/event-store';
import { taxCodeEvolver, taxCodeStream } from '@billing/invoicing';
import { eventually, startTestApp, TestApp } from '@billing/testing';
import { customer } from './invoicing-helpers';

/**
 * Tax-code events written by an older version of the service (schema v1: the
 * rate as a JSON fraction) are read as v2 (the rate in basis points) through
 * the event store, the command path and the read model, and sit in one
 * stream beside v2 events written afterwards. The stored rows are never
 * rewritten.
 */
describe('Tax-code events of schema v1 in the log', () => {
  let t: TestApp;
  const code = 'LEGACY 24%';
  const path = `/tax-codes/${encodeURIComponent(code)}`;

  beforeAll(async () => {
    t = await startTestApp();
    // As the service wrote them before v2: created at 25.5 %, then changed to 24 %.
    const stream = taxCodeStream(t.environmentId, code);
    const metadata = JSON.stringify({ actor: 'old-service', requestId: null, correlationId: randomUUID(), causationId: null });
    await t.dataSource.transaction(async (tx) => {
      await tx.query(`insert into streams (environment_id, stream_type, stream_id, version) values ($1, 'tax-code', $2, 2)`, [
        t.environmentId,
        stream.streamId,
      ]);
      await tx.query(
        `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
         values ($1, $3, 'tax-code', $4, 1, 'TaxCodeCreated', 1, $5, $7, '2025-06-01T08:00:00Z'),
                ($2, $3, 'tax-code', $4, 2, 'TaxCodeUpdated', 1, $6, $7, '2025-09-01T08:00:00Z')`,
        [
          randomUUID(),
          randomUUID(),
          t.environmentId,
          stream.streamId,
          JSON.stringify({ code, rate: 0.255, taxable: true, description: 'Standard', createdAt: '2025-06-01T08:00:00.000Z' }),
          JSON.stringify({ code, rate: 0.24, taxable: true, description: 'Standard', updatedAt: '2025-09-01T08:00:00.000Z' }),
          metadata,
        ],
      );
      await tx.query(`select pg_notify('billing_events', '')`);
    });
  });
  afterAll(() => t.close());

  /** The read model follows the log on its own (the worker); a raw insert is not a write that waits for it. */
  function eventuallyFound(): Promise<{ status: number; headers: Headers; body: any }> {
    return eventually(
      () => t.request('GET', path),
      (response) => response.status === 200,
      { what: `GET ${path} to find the tax code` },
    );
  }

  it('the event store reads them as v2, with the rate in basis points', async () => {
    const events = await t.app.get(EventStore).readStream(taxCodeStream(t.environmentId, code));
    expect(events.map(({ type, schemaVersion, data }) => ({ type, schemaVersion, data }))).toEqual([
      {
        type: 'TaxCodeCreated',
        schemaVersion: 2,
        data: { code, rateBasisPoints: 2550, taxable: true, description: 'Standard', createdAt: '2025-06-01T08:00:00.000Z' },
      },
      {
        type: 'TaxCodeUpdated',
        schemaVersion: 2,
        data: { code, rateBasisPoints: 2400, taxable: true, description: 'Standard', updatedAt: '2025-09-01T08:00:00.000Z' },
      },
    ]);
    const { state, version } = await t.app.get(CommandPath).load(taxCodeStream(t.environmentId, code), taxCodeEvolver);
    expect({ state, version }).toEqual({
      state: {
        status: 'active',
        code,
        rateBasisPoints: 2400,
        taxable: true,
        description: 'Standard',
        createdAt: '2025-06-01T08:00:00.000Z',
        updatedAt: '2025-09-01T08:00:00.000Z',
      },
      version: 2,
    });
  });

  it('GET /tax-codes/{code} shows the rate as the fraction, at the version of the stream', async () => {
    const response = await eventuallyFound();
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"2"');
    expect(response.body).toEqual({
      code,
      rate: 0.24,
      taxable: true,
      description: 'Standard',
      createdAt: '2025-06-01T08:00:00.000Z',
      updatedAt: '2025-09-01T08:00:00.000Z',
    });
    const listed = await t.request('GET', '/tax-codes');
    expect(listed.body.items).toEqual([response.body]);
  });

  it('invoices naming it are priced at its rate; a v2 update after the v1 events reprices the draft, and the v1 rows stay as written', async () => {
    await eventuallyFound();
    const draft = await t.request('POST', '/invoices', {
      body: { customer: customer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 1000, taxCode: code }] },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.items[0]).toMatchObject({ taxAmount: 240, tax: { taxable: true, taxCode: code, taxRate: 0.24 } });
    expect(draft.body).toMatchObject({ totalVat: 240, totalInclVat: 1240 });

    const updated = await t.request('PUT', path, { headers: { 'if-match': '"2"' }, body: { rate: 0.255 } });
    expect([updated.status, updated.headers.get('etag'), updated.body.rate]).toEqual([200, '"3"', 0.255]);
    expect((await t.request('GET', `/invoices/${draft.body.id}`)).body).toMatchObject({
      totalVat: 255,
      totalInclVat: 1255,
      items: [{ tax: { taxRate: 0.255 } }],
    });

    const stored = await t.dataSource.query(
      `select stream_version, schema_version, data from events where environment_id = $1 and stream_type = 'tax-code' order by stream_version`,
      [t.environmentId],
    );
    expect(
      stored.map((row: { stream_version: number; schema_version: number; data: Record<string, unknown> }) => [
        row.stream_version,
        row.schema_version,
        row.data.rate ?? row.data.rateBasisPoints,
      ]),
    ).toEqual([
      [1, 1, 0.255],
      [2, 1, 0.24],
      [3, 2, 2550],
    ]);
  });
});
