import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/**
 * "Every write goes through the one command path" (README: The one write
 * path), checked on the source: every command handler, its command's name
 * and file, and no code outside the event store appending or opening a
 * write transaction of its own.
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
 * Commands that do not answer the one result shape, `Written<State>` (a
 * resource's id, its stream's version and its state; the controller maps it
 * to the view and the ETag). Each answers something other than one resource
 * at a version: a batch's per-event results, a cancelled usage event (no
 * stream version is its ETag), nothing at all, or a webhook subscription with
 * its signing key, which exists in the answer only. No other command may join.
 */
const OTHER_RESULTS = [
  'IngestUsageEventsCommand',
  'CancelUsageEventCommand',
  'SubscribeWebhookCommand',
  'RotateWebhookKeyCommand',
  'UnsubscribeWebhookCommand',
  'RedeliverNotificationCommand',
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

  it('lets each stepwise service write through CommandPath only', () => {
    for (const service of STEPWISE) {
      const [file] = files.filter(({ text }) => new RegExp(`export class ${service}\\b`).test(text));
      expect(file.text).toMatch(/private readonly \w+: CommandPath\b/);
    }
  });
});
