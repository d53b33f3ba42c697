import { createHash, randomUUID } from 'node:crypto';
import { eventually, expectProblem, startTestApp, TestApp } from '@billing/testing';
import { SmtpTestServer } from './smtp-test-server';

/**
 * E-mail over a real SMTP server (smtp-server on a free port, SMTP_URL pointed at it): a booked invoice reaches
 * its customer's address with the recorded PDF; a 451 is retried with the same Message-ID; a 550 fails at once;
 * disabled settings send nothing; a resend; receipts; payment-failed and trial notices; another environment sees
 * nothing.
 */
describe('E-mail: settings, deliveries and SMTP', () => {
  let t: TestApp;
  let smtp: SmtpTestServer;

  beforeAll(async () => {
    // Addresses starting "defer" are answered 451 the first time, "reject" 550; the rest 250.
    smtp = new SmtpTestServer((recipients, received) => {
      const [to] = recipients;
      if (to.startsWith('reject')) return 550;
      if (to.startsWith('defer') && !received.some((message) => message.recipients.includes(to))) return 451;
      return 250;
    });
    const smtpUrl = await smtp.start();
    t = await startTestApp({ env: { SMTP_URL: smtpUrl, MAIL_FROM: 'Billing <billing@example.com>', EMAIL_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const ok = async (method: string, path: string, body: unknown, expected: number) => {
      const response = await t.request(method, path, { ...options, body });
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return {
      id,
      options,
      ok,
      async bookedInvoiceFor(email: string | null): Promise<{ invoiceId: string; handle: string }> {
        const customer = (await ok('POST', '/customers', { name: 'Acme Oy', ...(email ? { email } : {}) }, 201)).body;
        const draft = (
          await ok('POST', '/invoices', { customerId: customer.id, currency: 'EUR', items: [{ title: 'Pro plan', quantity: 1, unitAmount: 12300 }] }, 201)
        ).body;
        const booked = (await ok('PUT', `/invoices/${draft.id}/book`, {}, 200)).body;
        return { invoiceId: draft.id, handle: booked.handle };
      },
      emails: async (query = '') => (await ok('GET', `/emails${query}`, undefined, 200)).body.items as any[],
      async documentSha256(invoiceId: string): Promise<string> {
        const [row] = await t.dataSource.query(
          `select data->>'sha256' as sha256 from events where environment_id = $1 and stream_type = 'invoice-document' and stream_id = $2`,
          [id, invoiceId],
        );
        return row.sha256;
      },
    };
  }

  const address = (local: string) => `${local}-${randomUUID().slice(0, 8)}@example.org`;

  it('books an invoice: the customer gets it with the recorded PDF, HTML and text bodies; email.sent is recorded, the address masked', async () => {
    const env = environment();
    const to = address('anna');
    const { invoiceId, handle } = await env.bookedInvoiceFor(to);
    const [message] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 1,
      { what: 'the invoice mail' },
    );
    const { mail } = message;
    expect(mail.subject).toContain(handle);
    expect(mail.from?.text).toContain('billing@example.com');
    expect(mail.html).toContain(handle);
    expect(mail.text).toContain(handle);
    // The hosted page of the invoice, linked from both bodies.
    const { hostedInvoiceUrl } = (await env.ok('GET', `/invoices/${invoiceId}`, undefined, 200)).body;
    expect(hostedInvoiceUrl).toMatch(/\/i\/[A-Za-z0-9_-]{20,}$/);
    expect(mail.text).toContain(hostedInvoiceUrl);
    expect(mail.html).toContain(`href="${hostedInvoiceUrl}"`);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({ contentType: 'application/pdf', filename: `${handle}.pdf` });
    expect(sha256(mail.attachments[0].content)).toBe(await env.documentSha256(invoiceId));

    const [delivery] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}`),
      (items) => items[0]?.status === 'sent',
      { what: 'the delivery recorded as sent' },
    );
    expect(delivery).toMatchObject({ kind: 'invoice', invoiceId, recipient: to, attempts: 1, messageId: mail.messageId });
    expect(delivery.lastReply).toMatch(/^250/);
    const [sent] = await eventually(
      () => t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'EmailSent'`, [env.id]),
      (rows) => rows.length === 1,
      { what: 'the EmailSent event' },
    );
    expect(sent.data).toMatchObject({ deliveryId: delivery.id, invoiceId, recipient: `a***@${to.split('@')[1]}` });
    expect(JSON.stringify(sent.data)).not.toContain(to);
  });

  it('a 451 is retried: one mail accepted, with the same Message-ID as the deferred try', async () => {
    const env = environment();
    const to = address('defer');
    const { invoiceId } = await env.bookedInvoiceFor(to);
    const [deferred] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}`),
      (items) => items[0]?.attempts === 1,
      { what: 'the deferred try' },
    );
    expect(deferred).toMatchObject({ status: 'queued', attempts: 1 });
    expect(deferred.lastReply).toMatch(/451/);
    // The retry is due a minute later (real time): bring it forward instead of waiting.
    await t.dataSource.query(`update email_deliveries set next_attempt_at = now() where environment_id = $1 and id = $2`, [env.id, deferred.id]);
    const [delivery] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}`),
      (items) => items[0]?.status === 'sent',
      { what: 'the retry' },
    );
    expect(delivery.attempts).toBe(2);
    const messages = smtp.to(to);
    expect(messages.map((message) => message.reply)).toEqual([451, 250]);
    expect(messages[1].mail.messageId).toBe(messages[0].mail.messageId);
    expect(messages[1].mail.messageId).toBe(delivery.messageId);
  });

  it('a worker that died between claim and send: its lease runs out, then the mail is sent once, same Message-ID', async () => {
    const env = environment();
    const to = address('defer');
    const { invoiceId } = await env.bookedInvoiceFor(to);
    const [deferred] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}`),
      (items) => items[0]?.attempts === 1,
      { what: 'the deferred try' },
    );
    // A dead worker's claim: due now, leased for 1.5 s by a token no live dispatcher holds, never recorded.
    await t.dataSource.query(
      `update email_deliveries set next_attempt_at = now(), lease_token = $3, lease_expires_at = now() + interval '1.5 seconds'
        where environment_id = $1 and id = $2`,
      [env.id, deferred.id, randomUUID()],
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(smtp.to(to)).toHaveLength(1);
    const [delivery] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}`),
      (items) => items[0]?.status === 'sent',
      { what: 'the send after the lease ran out' },
    );
    expect(delivery.attempts).toBe(2);
    expect(smtp.to(to).map((message) => [message.reply, message.mail.messageId])).toEqual([
      [451, delivery.messageId],
      [250, delivery.messageId],
    ]);
  });

  it('a 550 fails at once and is not retried; email.failed is recorded', async () => {
    const env = environment();
    const to = address('reject');
    const { invoiceId } = await env.bookedInvoiceFor(to);
    const [delivery] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}&status=failed`),
      (items) => items.length === 1,
      { what: 'the failed delivery' },
    );
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    expect(delivery.lastReply).toMatch(/550/);
    const [failed] = await eventually(
      () => t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'EmailFailed'`, [env.id]),
      (rows) => rows.length === 1,
      { what: 'the EmailFailed event' },
    );
    expect(failed.data).toMatchObject({ deliveryId: delivery.id, attempts: 1 });
    // Nothing is due for it: however long the dispatcher polls, the server sees one try.
    const [row] = await t.dataSource.query(`select next_attempt_at from email_deliveries where id = $1`, [delivery.id]);
    expect(row.next_attempt_at).toBeNull();
    expect(smtp.to(to)).toHaveLength(1);
  });

  it('settings: defaults, replaced, validated; disabled sends nothing, a resend still does', async () => {
    const env = environment();
    expect((await env.ok('GET', '/email-settings', undefined, 200)).body).toEqual({
      enabled: true,
      invoiceBooked: true,
      paymentSucceeded: true,
      paymentFailed: true,
      creditNoteBooked: true,
      trialWillEnd: true,
      replyTo: null,
      bcc: null,
    });
    const settings = { enabled: false, invoiceBooked: true, paymentSucceeded: true, paymentFailed: false, creditNoteBooked: false, trialWillEnd: false };
    expectProblem(await t.request('PUT', '/email-settings', { ...env.options, body: { ...settings, replyTo: 'nope' } }), 422, 'validation-failed', '/replyTo');
    expectProblem(await t.request('PUT', '/email-settings', { ...env.options, body: { ...settings, enabled: 'yes' } }), 422, 'validation-failed', '/enabled');
    expectProblem(await t.request('PUT', '/email-settings', { ...env.options, body: { ...settings, colour: 'red' } }), 422, 'validation-failed', '/colour');
    expect((await env.ok('PUT', '/email-settings', { ...settings, replyTo: 'support@example.com' }, 200)).body).toMatchObject({
      enabled: false,
      replyTo: 'support@example.com',
      bcc: null,
    });

    const to = address('quiet');
    const { invoiceId, handle } = await env.bookedInvoiceFor(to);
    const again = address('again');
    expect((await env.ok('POST', `/invoices/${invoiceId}/send`, { to: again }, 202)).body).toEqual({ invoiceId, to: again });
    const [message] = await eventually(
      async () => smtp.to(again),
      (messages) => messages.length === 1,
      { what: 'the resent mail' },
    );
    expect(message.mail.subject).toContain(handle);
    expect(message.mail.replyTo?.text).toContain('support@example.com');
    // The reactor follows the log in order: the resend came after the document, which queued nothing.
    expect((await env.emails()).map((delivery) => delivery.recipient)).toEqual([again]);
    expect(smtp.to(to)).toEqual([]);
  });

  it('POST /invoices/{id}/send: 404 unknown, 409 draft, 422 bad address or property', async () => {
    const env = environment();
    expectProblem(await t.request('POST', `/invoices/${randomUUID()}/send`, { ...env.options, body: {} }), 404, 'not-found');
    const customer = (await env.ok('POST', '/customers', { name: 'Acme Oy', email: address('draft') }, 201)).body;
    const draft = (await env.ok('POST', '/invoices', { customerId: customer.id, currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }] }, 201)).body;
    expectProblem(await t.request('POST', `/invoices/${draft.id}/send`, { ...env.options, body: {} }), 409, 'invoice-not-booked');
    expectProblem(await t.request('POST', `/invoices/${draft.id}/send`, { ...env.options, body: { to: 'not-an-address' } }), 422, 'validation-failed', '/to');
    expectProblem(await t.request('POST', `/invoices/${draft.id}/send`, { ...env.options, body: { cc: 'a@b.co' } }), 422, 'validation-failed', '/cc');
    expectProblem(await t.request('GET', '/emails?status=lost', env.options), 422, 'validation-failed', '/query/status');
    expectProblem(await t.request('GET', '/emails?invoiceId=x', env.options), 422, 'validation-failed', '/query/invoiceId');
  });

  it('a succeeded payment sends a receipt with the amount and the invoice handle (no attachment)', async () => {
    const env = environment();
    const to = address('payer');
    const { invoiceId, handle } = await env.bookedInvoiceFor(to);
    await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 1,
      { what: 'the invoice mail' },
    );
    await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_email' } }, 200);
    const payment = (await env.ok('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
    const [, receipt] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 2,
      { what: 'the receipt' },
    );
    expect(receipt.mail.subject).toBe(`Receipt for invoice ${handle}`);
    expect(receipt.mail.text).toContain('123.00 EUR');
    expect(receipt.mail.attachments).toEqual([]);
    const deliveries = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}&status=sent`),
      (items) => items.length === 2,
      { what: 'both deliveries sent' },
    );
    expect(deliveries.map((delivery) => [delivery.kind, delivery.paymentId])).toEqual([
      ['receipt', payment.id],
      ['invoice', null],
    ]);
  });

  it('an inline invoice customer with an e-mail: the booked invoice and its receipt go to that address', async () => {
    const env = environment();
    const to = address('inline');
    const customer = { id: randomUUID(), handle: 'C-9', name: 'One-off Oy', email: to };
    const draft = (await env.ok('POST', '/invoices', { customer, currency: 'EUR', items: [{ title: 'Setup', quantity: 1, unitAmount: 4500 }] }, 201)).body;
    expect(draft.customer.email).toBe(to);
    const { handle } = (await env.ok('PUT', `/invoices/${draft.id}/book`, {}, 200)).body;
    const [invoiceMail] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 1,
      { what: 'the invoice mail to the inline customer' },
    );
    expect(invoiceMail.mail.subject).toContain(handle);
    await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_inline' } }, 200);
    await env.ok('POST', '/payments', { invoiceId: draft.id, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201);
    const [, receipt] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 2,
      { what: 'the receipt to the inline customer' },
    );
    expect(receipt.mail.subject).toBe(`Receipt for invoice ${handle}`);
    const deliveries = await eventually(
      () => env.emails(`?invoiceId=${draft.id}&status=sent`),
      (items) => items.length === 2,
      { what: 'both deliveries sent' },
    );
    expect(deliveries.map((delivery) => [delivery.kind, delivery.recipient])).toEqual([
      ['receipt', to],
      ['invoice', to],
    ]);
  });

  it('a failed payment sends a notice with the amount, the reason and the link to pay; paying then sends the receipt', async () => {
    const env = environment();
    const to = address('declined');
    const { invoiceId, handle } = await env.bookedInvoiceFor(to);
    await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 1,
      { what: 'the invoice mail' },
    );
    await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_email' } }, 200);
    const failed = (await env.ok('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_decline' } }, 201)).body;
    expect(failed.status).toBe('failed');
    const [, notice] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 2,
      { what: 'the payment-failed notice' },
    );
    expect(notice.mail.subject).toBe(`Payment failed for invoice ${handle}`);
    expect(notice.mail.text).toContain('123.00 EUR');
    expect(notice.mail.text).toContain(failed.failureMessage);
    const { hostedInvoiceUrl } = (await env.ok('GET', `/invoices/${invoiceId}`, undefined, 200)).body;
    expect(notice.mail.text).toContain(hostedInvoiceUrl);
    expect(notice.mail.html).toContain(`href="${hostedInvoiceUrl}"`);
    expect(notice.mail.attachments).toEqual([]);
    const [delivery] = await eventually(
      () => env.emails(`?invoiceId=${invoiceId}&status=sent`),
      (items) => items.length === 2,
      { what: 'the notice recorded as sent' },
    );
    expect(delivery).toMatchObject({ kind: 'payment_failed', invoiceId, subscriptionId: null, paymentId: failed.id, recipient: to });

    await env.ok('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201);
    await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 3,
      { what: 'the receipt' },
    );
    expect(smtp.to(to).map((message) => message.mail.subject)).toEqual([
      expect.stringContaining(handle),
      `Payment failed for invoice ${handle}`,
      `Receipt for invoice ${handle}`,
    ]);
  });

  it('paymentFailed off: a failed payment sends nothing', async () => {
    const env = environment();
    const on = { enabled: true, invoiceBooked: true, paymentSucceeded: true, creditNoteBooked: true, trialWillEnd: true };
    await env.ok('PUT', '/email-settings', { ...on, paymentFailed: false }, 200);
    const to = address('quietfail');
    const { invoiceId } = await env.bookedInvoiceFor(to);
    await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_email' } }, 200);
    await env.ok('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_decline' } }, 201);
    // The resend is queued after the failure in log order: once it is mailed, the failure was read and skipped.
    await env.ok('POST', `/invoices/${invoiceId}/send`, {}, 202);
    await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 2,
      { what: 'the invoice mail and its resend' },
    );
    expect((await env.emails(`?invoiceId=${invoiceId}`)).map((delivery) => delivery.kind)).toEqual(['invoice', 'invoice']);
  });

  it("a trial about to end: the subscription's customer gets a notice 3 days before, on the environment's test clock", async () => {
    const env = environment();
    const to = address('trialist');
    const customer = (await env.ok('POST', '/customers', { name: 'Trial Oy', email: to }, 201)).body;
    const productId = (await env.ok('POST', '/products', { name: 'Pro plan' }, 201)).body.id;
    const price = { priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'advance', productId, name: 'Pro' };
    const priceId = (await env.ok('POST', '/prices', { ...price, pricing: { eur: { unitAmount: 3100 } } }, 201)).body.id;
    const today = new Date().toISOString().slice(0, 10);
    const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    const subscription = (
      await env.ok(
        'POST',
        '/subscriptions',
        { customerId: customer.id, currency: 'EUR', term: { start: today, end: null }, items: [{ priceId }], trialDays: 14 },
        201,
      )
    ).body;
    expect(subscription.status).toBe('trialing');
    await env.ok('POST', '/test-clock/advance', { to: `${day(11)}T12:00:00.000Z` }, 200);
    const [notice] = await eventually(
      async () => smtp.to(to),
      (messages) => messages.length === 1,
      { what: 'the trial notice' },
    );
    expect(notice.mail.subject).toBe(`Your trial ends on ${day(14)}`);
    expect(notice.mail.text).toContain(subscription.handle);
    expect(notice.mail.attachments).toEqual([]);
    const [delivery] = await eventually(
      () => env.emails('?status=sent'),
      (items) => items.length === 1,
      { what: 'the notice recorded as sent' },
    );
    expect(delivery).toMatchObject({ kind: 'trial_will_end', invoiceId: null, subscriptionId: subscription.id, paymentId: null, recipient: to });
    const [sent] = await eventually(
      () => t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'EmailSent'`, [env.id]),
      (rows) => rows.length === 1,
      { what: 'the EmailSent event' },
    );
    expect(sent.data).toMatchObject({ kind: 'trial_will_end', invoiceId: null, subscriptionId: subscription.id });
  });

  it("another environment's invoice is a 404 and its deliveries are not listed", async () => {
    const owner = environment();
    const to = address('owner');
    const { invoiceId } = await owner.bookedInvoiceFor(to);
    await eventually(
      () => owner.emails(),
      (items) => items.length === 1,
      { what: "the owner's delivery" },
    );
    const other = environment();
    expectProblem(await t.request('POST', `/invoices/${invoiceId}/send`, { ...other.options, body: {} }), 404, 'not-found');
    expect(await other.emails()).toEqual([]);
    expect(await other.emails(`?invoiceId=${invoiceId}`)).toEqual([]);
  });
});
