import { findInputDefect, InputDefect, isValidText } from '@billing/platform';
import { FieldError } from '@billing/shared-kernel';

/** Longer than any id or type Stripe sends (its ids are under 100 characters). */
const MAX_NAME_LENGTH = 255;

/**
 * The first way a signed body is not a Stripe event this route can handle,
 * or null. A valid signature proves who sent the bytes, not what they hold:
 * a test or a misconfigured sender can sign anything. The id and type are
 * stored (stripe_webhook_events), `data.object` is read by every handler,
 * and the edge's check for text Postgres cannot store is skipped for this
 * route (its body is verified as raw text), so it is made here.
 */
export function stripeEventShapeError(event: unknown): FieldError | null {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return { pointer: '', detail: 'must be a Stripe Event object' };
  const { id, type, data } = event as Record<string, unknown>;
  for (const [name, value] of [
    ['id', id],
    ['type', type],
  ] as const) {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NAME_LENGTH || !isValidText(value)) {
      return { pointer: `/${name}`, detail: `must be a string of 1 to ${MAX_NAME_LENGTH} characters without U+0000` };
    }
  }
  const object = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).object : undefined;
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return { pointer: '/data/object', detail: 'must be an object' };
  const defect = findInputDefect(event);
  return defect ? { pointer: defect.pointer, detail: DEFECTS[defect.kind] } : null;
}

const DEFECTS: Record<InputDefect['kind'], string> = {
  'too-deep': 'is nested too deeply',
  'too-many-members': 'has too many members',
  'invalid-text': 'holds U+0000 or an unpaired surrogate',
};
