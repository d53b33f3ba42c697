/**
 * The context map: which package under libs/ may use which, always through
 * its public entry `@billing/<name>` (its index.ts). eslint.config.js turns it
 * into lint rules; README.md (Architecture) explains it.
 *
 * Both lists run bottom-up and an entry may use only entries listed before it,
 * so a dependency against the map's direction, and with it a cycle between
 * contexts, cannot be written: the linter refuses the import, and a map that
 * lists a use of a later entry does not load.
 */

/** Below every context, importable by all of them; each uses the ones before it. */
const FOUNDATION = ['shared-kernel', 'event-store', 'platform'];

/** The bounded contexts and the contexts each may use (besides the foundation). */
const CONTEXTS = [
  { name: 'catalog', uses: [] },
  // Checks the products a coupon applies to against the catalog's product streams (published events and fold).
  { name: 'coupons', uses: ['catalog'] },
  // May redeem coupons on draft invoices (coupons' published redemption); does not yet.
  { name: 'invoicing', uses: ['coupons'] },
  { name: 'webhooks', uses: [] },
  // Runs invoicing's commands (the billing engine), reads prices and products, redeems coupons in its own commands.
  { name: 'subscriptions', uses: ['catalog', 'coupons', 'invoicing'] },
  // Renders booked invoices.
  { name: 'templates', uses: ['invoicing'] },
  // Pays invoices and settles them through invoicing's decider; collects the invoices the billing engine books for a
  // subscription with a payment method, so it follows subscriptions' events (the one use beyond the map issue 21 drew),
  // and cancels a subscription through subscriptions' published cancel command when the dunning settings say so.
  // Serves the hosted invoice page (issue 25): opens invoicing's links and shows templates' recorded document.
  { name: 'payments', uses: ['invoicing', 'subscriptions', 'templates'] },
  // Mails booked invoices with their recorded PDFs (templates' published e-mail query), payment receipts and
  // payment-failed notices, and subscriptions' trial-will-end notices (it follows their published events).
  { name: 'email', uses: ['invoicing', 'payments', 'subscriptions', 'templates'] },
  // Revenue, receivables and MRR (issue 28): read models from invoicing's (invoices, customers' discounts), payments'
  // and subscriptions' published events, and the catalog's prices an MRR is priced with; an MRR's discounts follow
  // subscriptions' published discount rules; its page formats money and dates with templates' formatting.
  { name: 'analytics', uses: ['catalog', 'invoicing', 'payments', 'subscriptions', 'templates'] },
];

/**
 * Libraries for the service's users, not contexts: they use no package here and none uses them. `client` is the typed
 * HTTP client API consumers call the service with (generated from /openapi.json).
 */
const CONSUMER_LIBRARIES = ['client'];

/** Every package under libs/ with the packages it may import. */
function allowedImports() {
  const allowed = new Map();
  FOUNDATION.forEach((name, index) => allowed.set(name, FOUNDATION.slice(0, index)));
  for (const { name, uses } of CONTEXTS) {
    for (const used of uses) {
      if (!allowed.has(used) || FOUNDATION.includes(used)) throw new Error(`context-map.js: ${name} uses ${used}, which is not a context listed before it`);
    }
    allowed.set(name, [...FOUNDATION, ...uses]);
  }
  for (const name of CONSUMER_LIBRARIES) allowed.set(name, []);
  return allowed;
}

module.exports = { FOUNDATION, CONTEXTS, CONSUMER_LIBRARIES, allowedImports };
