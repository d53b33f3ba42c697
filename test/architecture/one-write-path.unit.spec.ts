import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { sqlWrites } from './sql-writes';

/**
 * "Every write goes through the one command path" (README: The one write
 * path), checked on the source: every command handler, its command's name
 * and file, no code outside the event store appending or opening a write
 * transaction of its own, no SQL statement writing a table outside the
 * event store, the projections and the reactors unless it is listed here
 * with its reason, and no package's SQL writing another package's tables.
 */
const ROOT = join(__dirname, '..', '..');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.includes('.spec.') && !entry.name.endsWith('-spec.ts') ? [path] : [];
  });
}

const files = [...sources(join(ROOT, 'libs')), ...sources(join(ROOT, 'apps'))].map((path) => ({
  path: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));
const handlers = files.flatMap(({ path, text }) => [...text.matchAll(/@CommandHandler\((\w+)\)/g)].map((match) => ({ path, text, command: match[1] })));

/** Services a handler may delegate to: each runs every step of its command through CommandPath itself. */
const STEPWISE = ['PaymentFlow'];

/**
 * Writes that are no command (no event, no client's change to a resource):
 * a worker's own bookkeeping and the sandbox's simulated provider.
 */
const OWN_TRANSACTIONS = [
  'libs/platform/src/clock/environment-clock.ts', // a test clock's advance: the environment's clock row, serialised by an advisory lock
  'libs/webhooks/src/delivery/dispatcher.ts', // a delivery attempt's outcome on its leased row
  'libs/payments/src/gateway/sandbox-gateway.ts', // the simulated provider's own records
];

/**
 * The SQL writes (sql-writes.ts: insert, update, delete, merge, copy, truncate) outside the event store
 * (`libs/event-store`), the projections (`*.projection.ts`: read models the runner rebuilds from the log) and the
 * reactors (`*.reactor.ts`: side effects of events, tracked by the runner), by file, each table once as
 * `<statement> <table>`: none is an event, so each says why the table is written beside the log rather than from
 * it. Tests and migrations are not searched. A write anywhere else fails the test until it is listed; a listed one
 * that is gone fails it too.
 */
const SQL_WRITES: readonly { readonly file: string; readonly writes: readonly string[]; readonly reason: string }[] = [
  {
    file: 'libs/invoicing/src/invoice-numbers.ts',
    writes: ['insert invoice_number_sequences'],
    reason: "invoicing's gapless number counter, a row a booking's decision needs, locked in the command's transaction until commit",
  },
  {
    file: 'libs/subscriptions/src/create-subscription/create-subscription.handler.ts',
    writes: ['insert subscription_handle_sequences'],
    reason: "subscriptions' handle counter, a row the create's decision needs, locked in its transaction until commit",
  },
  {
    file: 'libs/templates/src/documents/invoice-documents.ts',
    writes: ['insert invoice_documents'],
    reason: "a rendered document's bytes, too large for an event, stored in the transaction that appends its stream",
  },
  {
    file: 'libs/subscriptions/src/usage/usage-store.ts',
    writes: ['insert usage_events', 'insert usage_event_cancellations'],
    reason: 'usage ingestion: metered events at a volume no stream takes, idempotent by id, in the ingesting command’s transaction',
  },
  {
    file: 'libs/platform/src/idempotency/idempotency.store.ts',
    writes: ['delete idempotency_keys'],
    reason: 'the idempotency store purging keys past their retention (the event store writes them)',
  },
  {
    file: 'libs/platform/src/clock/environment-clock.ts',
    writes: ['insert environment_clocks'],
    reason: "a test clock's advance: the environment's clock row, serialised by an advisory lock",
  },
  {
    file: 'libs/platform/src/payment-tokens/redact-token-sql.ts',
    writes: ['update ${table}'],
    reason: 'a statement built for migrations only (they redact clear payment tokens in read-model rows)',
  },
  {
    file: 'libs/payments/src/gateway/sandbox-gateway.ts',
    writes: ['insert sandbox_gateway_refunds', 'insert sandbox_gateway_charges'],
    reason: "the simulated provider's own records",
  },
  {
    file: 'libs/payments/src/gateway/stripe/stripe-gateway.ts',
    writes: ['update stripe_payment_intents', 'insert stripe_payment_intents'],
    reason: "the Stripe gateway's own table: the request sent for a reference and the intent Stripe made of it, so a retry sends the same",
  },
  {
    file: 'libs/payments/src/gateway-webhooks/stripe-events.ts',
    writes: ['insert stripe_webhook_events'],
    reason: "Stripe's event ids already handled, so a resent event is acknowledged as a duplicate",
  },
  {
    file: 'libs/email/src/outbox/email-dispatcher.ts',
    writes: ['update email_deliveries'],
    reason: "an e-mail delivery's lease and outcome on its row, written by its dispatcher (the outbox reactor inserts the row)",
  },
  {
    file: 'libs/webhooks/src/delivery/dispatcher.ts',
    writes: ['update webhook_deliveries'],
    reason: "a webhook delivery's lease on its row, taken and given back by its dispatcher (the fan-out reactor inserts the row)",
  },
  {
    file: 'libs/webhooks/src/delivery/attempt-recorder.ts',
    writes: ['insert webhook_delivery_attempts', 'update webhook_deliveries'],
    reason: "a webhook delivery attempt and its outcome on the delivery's row, recorded for the dispatcher",
  },
  {
    file: 'libs/webhooks/src/redeliver/redeliver.handler.ts',
    writes: ['update webhook_deliveries'],
    reason: 'a client asking for a delivery again: its row made pending, under the row lock, in the command’s transaction',
  },
];

/**
 * SQL writes of a package (`libs/<context>`) to a table another package's migrations create. The event store stores
 * a keyed request's answer in the idempotency store's table (platform's) in the transaction of the request's events.
 */
const FOREIGN_WRITES = [{ file: 'libs/event-store/src/event-store-sql.ts', table: 'idempotency_keys' }];

/**
 * Commands that do not answer the one result shape, `Written<State>` (a
 * resource's id, its stream's version and its state; the controller maps it
 * to the view and the ETag). Each answers something other than one resource
 * at a version: a batch's per-event results, a cancelled usage event (no
 * stream version is its ETag), nothing at all, a webhook subscription with
 * its signing key, which exists in the answer only, or invoice numbers taken
 * for a batch that another command books. No other command may join.
 */
const OTHER_RESULTS = [
  'IngestUsageEventsCommand',
  'CancelUsageEventCommand',
  'SubscribeWebhookCommand',
  'RotateWebhookKeyCommand',
  'UnsubscribeWebhookCommand',
  'RedeliverNotificationCommand',
  'ReserveInvoiceNumbersCommand',
];

describe('the one write path', () => {
  it('finds the command handlers', () => {
    expect(handlers.length).toBeGreaterThanOrEqual(30);
  });

  it.each(handlers.map((handler) => [handler.command, handler]))(
    '%s is a …Command class typed with its result, in its own file beside its handler, handled through CommandPath',
    (_name, { path, text, command }) => {
      expect(command).toMatch(/Command$/);
      expect(files.some((file) => new RegExp(`export class ${command} extends Command<`).test(file.text))).toBe(true);
      const declared = files.filter((file) => new RegExp(`export class ${command}\\b`).test(file.text)).map((file) => file.path);
      expect(declared).toHaveLength(1);
      expect(dirname(declared[0])).toBe(dirname(path));
      expect(basename(declared[0])).toMatch(/\.command\.ts$/);
      expect(text).not.toMatch(/export class \w+Command\b/);
      const delegates = [/private readonly \w+: CommandPath\b/, ...STEPWISE.map((service) => new RegExp(`private readonly \\w+: ${service}\\b`))];
      expect(delegates.some((pattern) => pattern.test(text))).toBe(true);
    },
  );

  it.each(handlers.filter(({ command }) => !OTHER_RESULTS.includes(command)).map((handler) => [handler.command, handler]))(
    '%s answers the one result shape, Written<State>',
    (_name, { command }) => {
      expect(files.filter((file) => new RegExp(`export class ${command} extends Command<Written<\\w+>>`).test(file.text))).toHaveLength(1);
    },
  );

  it('lists as answering another shape only commands that exist and do not answer Written', () => {
    for (const command of OTHER_RESULTS) {
      expect(handlers.map((handler) => handler.command)).toContain(command);
      expect(files.some((file) => new RegExp(`export class ${command} extends Command<Written<`).test(file.text))).toBe(false);
    }
  });

  it('leaves appending and write transactions to the event store: nothing else appends or opens its own', () => {
    const writes = /eventStore\.append\(|toNewEvents\(|inTransaction\(|new CommandSession\(|\.transaction\(/;
    const offenders = files
      .filter(({ path, text }) => !path.startsWith('libs/event-store/') && !OWN_TRANSACTIONS.includes(path) && writes.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it('leaves SQL writes to the event store, projections and reactors, but for those listed with their reason', () => {
    const exempt = (path: string) => path.startsWith('libs/event-store/') || /\.(projection|reactor)\.ts$/.test(path) || path.includes('/migrations/');
    const distinct = (writes: readonly string[]) => [...new Set(writes)].sort();
    const found = files
      .filter(({ path }) => !exempt(path))
      .map(({ path, text }) => [path, distinct(sqlWrites(text, path).map(({ statement, table }) => `${statement} ${table}`))] as const)
      .filter(([, writes]) => writes.length > 0);
    // Compared whole, so the difference names both a write not listed and a listed one that is gone.
    expect(Object.fromEntries(found)).toEqual(Object.fromEntries(SQL_WRITES.map(({ file, writes }) => [file, distinct(writes)])));
  });

  it("lets each package's SQL write only the tables its own migrations create, but for those listed", () => {
    const packageOf = (path: string) => path.split('/').slice(0, 2).join('/');
    const migrations = files.filter(({ path }) => path.includes('/migrations/'));
    const tables = /\b(?:create|drop)\s+table\s+(?:if\s+(?:not\s+)?exists\s+)?([a-z_]\w*)/gi;
    const owners = new Map(migrations.flatMap(({ path, text }) => [...text.matchAll(tables)].map((match) => [match[1], packageOf(path)] as const)));
    // An interpolated name (a projection's list of its tables) is not checked.
    const written = (text: string, path: string) => sqlWrites(text, path).flatMap(({ table }) => (table.includes('${') ? [] : table.split(/\s*,\s*/)));
    const foreign = files
      .filter(({ path }) => !path.includes('/migrations/'))
      .flatMap(({ path, text }) =>
        [...new Set(written(text, path))].filter((table) => owners.get(table) !== packageOf(path)).map((table) => ({ file: path, table })),
      );
    expect(foreign).toEqual(FOREIGN_WRITES);
  });

  it('lets each stepwise service write through CommandPath only', () => {
    for (const service of STEPWISE) {
      const [file] = files.filter(({ text }) => new RegExp(`export class ${service}\\b`).test(text));
      expect(file.text).toMatch(/private readonly \w+: CommandPath\b/);
    }
  });
});
