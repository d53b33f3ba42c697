import { CustomerEvent } from '../domain';

/**
 * The customer's events with its payment method's token sealed: the decider
 * checked the token in clear, and only the sealed form is written (events,
 * and the read model folded from them). A token sealed already is kept; one
 * kept in clear by an event from before tokens were sealed is sealed by the
 * customer's next update.
 */
export function withSealedPaymentMethod<E extends CustomerEvent>(events: readonly E[], seal: (token: string) => string): E[] {
  return events.map((event) => {
    if (event.type !== 'CustomerCreated' && event.type !== 'CustomerUpdated') return event;
    const method = event.data.defaultPaymentMethod;
    return method ? { ...event, data: { ...event.data, defaultPaymentMethod: { ...method, token: seal(method.token) } } } : event;
  });
}
