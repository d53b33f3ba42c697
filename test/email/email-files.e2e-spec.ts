import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { eventually, startTestApp, TestApp } from '@billing/testing';

/** Development without SMTP_URL: every mail is written as `<DATA_DIR>/mail/<delivery id>.eml`, the message as it would be sent. */
describe('E-mail without SMTP_URL (development): .eml files', () => {
  let t: TestApp;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'billing-mail-'));
    t = await startTestApp({ env: { NODE_ENV: 'development', DATA_DIR: dataDir, EMAIL_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes the booked invoice with its recorded PDF to <DATA_DIR>/mail', async () => {
    const to = `dev-${randomUUID().slice(0, 8)}@example.org`;
    const customer = (await t.request('POST', '/customers', { body: { name: 'Acme Oy', email: to } })).body;
    const invoice = (await t.request('POST', '/invoices', { body: { customerId: customer.id, currency: 'EUR', items: [{ quantity: 1, unitAmount: 4200 }] } }))
      .body;
    const booked = (await t.request('PUT', `/invoices/${invoice.id}/book`, { body: {} })).body;
    const [delivery] = await eventually(
      async () => (await t.request('GET', `/emails?invoiceId=${invoice.id}`)).body.items,
      (items: any[]) => items[0]?.status === 'sent',
      { what: 'the mail written' },
    );
    const path = join(dataDir, 'mail', `${delivery.id}.eml`);
    expect(delivery.lastReply).toBe(`written to ${path}`);
    const mail = await simpleParser(readFileSync(path));
    expect(mail.to).toMatchObject({ text: to });
    expect(mail.subject).toContain(booked.handle);
    expect(mail.messageId).toBe(delivery.messageId);
    const [record] = await t.dataSource.query(`select data->>'sha256' as sha256 from events where stream_type = 'invoice-document' and stream_id = $1`, [
      invoice.id,
    ]);
    expect(createHash('sha256').update(mail.attachments[0].content).digest('hex')).toBe(record.sha256);
  });
});
