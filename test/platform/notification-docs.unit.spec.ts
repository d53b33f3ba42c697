import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXTS } from '../../apps/api/src/contexts';

/** The webhook catalogue users read (libs/webhooks/README.md) lists exactly the notifications the contexts publish. */
describe('the documented webhook catalogue', () => {
  it('names every published notification once, and nothing else', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'libs', 'webhooks', 'README.md'), 'utf8');
    const documented = [...readme.matchAll(/^\| `([a-z_]+\.[a-z_]+)` +\|/gm)].map((match) => match[1]).sort();
    const published = CONTEXTS.flatMap((context) => context.notifications.map((notification) => notification.name)).sort();
    expect(documented).toEqual([...new Set(published)]);
  });
});
