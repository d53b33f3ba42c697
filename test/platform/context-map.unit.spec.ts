import { lintProblems as problems } from '@billing/testing/lint';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// The map itself, as eslint.config.js loads it.
const { CONTEXTS, FOUNDATION, CONSUMER_LIBRARIES, allowedImports } = require('../../context-map.js') as {
  CONTEXTS: { name: string; uses: string[] }[];
  FOUNDATION: string[];
  CONSUMER_LIBRARIES: string[];
  allowedImports(): Map<string, string[]>;
};

/**
 * The context map as lint rules (eslint.config.js from context-map.js): code
 * placed at paths inside the contexts, linted with the repository's
 * configuration.
 */
describe('context map lint rules', () => {
  const root = join(__dirname, '..', '..');

  it.each([
    ['libs/invoicing/src/http/example.ts', "import { paymentStream } from '@billing/payments';", 'lets invoicing use shared-kernel, event-store, platform'],
    ['libs/catalog/src/read-model/example.ts', "import { subscriptionStream } from '@billing/subscriptions';", 'lets catalog use'],
    ['libs/coupons/src/example.ts', "import { invoiceStream } from '@billing/invoicing';", 'lets coupons use shared-kernel, event-store, platform, catalog'],
    [
      'libs/templates/src/example.ts',
      "import { paymentStream } from '@billing/payments';",
      'lets templates use shared-kernel, event-store, platform, invoicing',
    ],
    ['libs/webhooks/src/delivery/example.ts', "import { invoiceStream } from '@billing/invoicing';", 'lets webhooks use'],
    ['libs/platform/src/http/example.ts', "import { catalogContext } from '@billing/catalog';", 'lets platform use shared-kernel, event-store'],
    ['libs/event-store/src/example.ts', "import { loadConfig } from '@billing/platform';", 'lets event-store use shared-kernel'],
    ['libs/shared-kernel/src/example.ts', "import { EventStore } from '@billing/event-store';", 'lets shared-kernel use no other package'],
  ])('refuses a use against the map: in %s, `%s`', (path, code, expected) => {
    expect(problems(path, code).join('\n')).toContain(expected);
  });

  it.each([
    ['libs/subscriptions/src/billing/example.ts', "import { invoiceStream } from '@billing/invoicing/streams';"],
    ['libs/templates/src/documents/example.ts', "import { toInvoiceView } from '../../../invoicing/src/read-model/invoice-view';"],
    ['apps/api/src/example.ts', "import { PaymentFlow } from '@billing/payments/payment-flow';"],
  ])('refuses a deep import into another context: in %s, `%s`', (path, code) => {
    expect(problems(path, code).join('\n')).toMatch(/public entry/);
  });

  it('refuses an import of apps/ from libs/', () => {
    expect(problems('libs/platform/src/example.ts', "import { createApp } from '../../../apps/api/src/create-app';").join('\n')).toContain(
      'Nothing in libs/ imports apps/',
    );
  });

  it.each([
    ['libs/subscriptions/src/billing/example.ts', "import { chargeLines } from '@billing/catalog';\nimport { invoiceStream } from '@billing/invoicing';"],
    [
      'libs/payments/src/example.ts',
      "import { invoiceEvolver } from '@billing/invoicing';\nimport { CommandPath } from '@billing/event-store';\nimport { APP_CONFIG } from '@billing/platform';",
    ],
    ['libs/templates/src/example.ts', "import type { InvoiceView } from '@billing/invoicing';"],
    // The hosted invoice page shows templates' recorded document.
    ['libs/payments/src/hosted-page/example.ts', "import { RecordedInvoiceDocumentQuery } from '@billing/templates';"],
    ['libs/subscriptions/src/example.ts', "import { redeemDiscounts } from '@billing/coupons';"],
    ['libs/catalog/src/example.ts', "import { roundHalfAwayFromZero } from '@billing/shared-kernel';\nimport { priceEvolver } from './domain';"],
    ['apps/api/src/example.ts', "import { subscriptionsContext } from '@billing/subscriptions';\nimport { webhooksContext } from '@billing/webhooks';"],
  ])('accepts a use the map allows: in %s', (path, code) => {
    expect(problems(path, code)).toEqual([]);
  });

  it('refuses process.env outside the config module and the process entry', () => {
    const read = 'export const timeout = process.env.WEBHOOK_TIMEOUT_MS;\n';
    expect(problems('libs/webhooks/src/webhooks.module.ts', read).join('\n')).toContain('no-restricted-properties');
    expect(problems('apps/api/src/create-app.ts', read).join('\n')).toContain('no-restricted-properties');
    expect(problems('libs/platform/src/config/example.ts', read)).toEqual([]);
  });

  it('places every package under libs/ and lets each use only those listed before it (no cycle)', () => {
    const allowed = allowedImports();
    expect([...FOUNDATION, ...CONTEXTS.map((context) => context.name), ...CONSUMER_LIBRARIES].sort()).toEqual(readdirSync(join(root, 'libs')).sort());
    const order = [...allowed.keys()];
    for (const [name, uses] of allowed) for (const used of uses) expect(order.indexOf(used)).toBeLessThan(order.indexOf(name));
  });
});
