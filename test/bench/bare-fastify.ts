/**
 * Child process: a bare Fastify server (no NestJS, no auth, no database) with
 * one route answering about 1 KB of JSON, the ceiling for what HTTP plus JSON
 * serialisation cost in Node on this machine. Prints `{"port": n}` once listening.
 */
import Fastify from 'fastify';

/** About 1 KB once serialised: the shape of a small invoice. */
export const BARE_PAYLOAD = {
  id: '0b6f2f4e-6a7d-4c53-9f4e-3f1d2a9b8c71',
  status: 'draft',
  type: 'invoice',
  handle: null,
  currency: 'EUR',
  date: '2026-01-15',
  dueDate: '2026-02-14',
  memo: 'Benchmark payload of roughly one kilobyte',
  customer: {
    id: '7d2c9a10-5b3e-4f61-8a2d-1c0e9f8b7a65',
    handle: 'C-1',
    name: 'Bench Oy',
    billingAddress: { street1: 'Mannerheimintie 1', postalCode: '00100', city: 'Helsinki', country: 'FI' },
  },
  lines: [
    { id: 'a1b2c3d4-0001-4000-8000-000000000001', title: 'A', quantity: 2, unitAmount: 1999, discount: null, taxCode: null, amount: 3998, taxAmount: 0 },
    { id: 'a1b2c3d4-0002-4000-8000-000000000002', title: 'B', quantity: 1, unitAmount: 500, discount: null, taxCode: null, amount: 500, taxAmount: 0 },
  ],
  settlements: [],
  totalExclVat: 4498,
  totalVat: 0,
  totalInclVat: 4498,
  totalDue: 4498,
  settlementStatus: 'not_settled',
  createdAt: '2026-01-15T10:00:00.000Z',
  updatedAt: null,
  creditedInvoiceId: null,
  duplicatedFromInvoiceId: null,
};

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/bench', async () => BARE_PAYLOAD);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ port, bytes: JSON.stringify(BARE_PAYLOAD).length })}\n`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
