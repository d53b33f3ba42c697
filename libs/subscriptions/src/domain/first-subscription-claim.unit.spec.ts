import { deciderSpec } from '@billing/testing/decider-spec';
import { CustomerFirstSubscriptionClaimed, decideClaimFirstSubscription, firstSubscriptionClaimEvolver } from './first-subscription-claim';

const spec = deciderSpec(firstSubscriptionClaimEvolver);
const claimed = (subscriptionId: string): CustomerFirstSubscriptionClaimed => ({
  type: 'CustomerFirstSubscriptionClaimed',
  schemaVersion: 1,
  data: { customerId: 'c1', subscriptionId },
});

describe('the first-subscription claim of a customer', () => {
  it('given no claim, when a subscription is created, then it claims it and is the first', () => {
    spec
      .given([])
      .when((state) => decideClaimFirstSubscription({ customerId: 'c1', subscriptionId: 's1', earlierSubscriptions: false }, state))
      .then({ firstTime: true, events: [claimed('s1')] });
  });

  it('given no claim but subscriptions from before claims were recorded, when one is created, then it claims it and is not the first', () => {
    spec
      .given([])
      .when((state) => decideClaimFirstSubscription({ customerId: 'c1', subscriptionId: 's2', earlierSubscriptions: true }, state))
      .then({ firstTime: false, events: [claimed('s2')] });
  });

  it('given a claim, when another subscription is created, then it is not the first and writes nothing (later subscriptions never contend)', () => {
    spec
      .given([claimed('s1')])
      .when((state) => decideClaimFirstSubscription({ customerId: 'c1', subscriptionId: 's2', earlierSubscriptions: false }, state))
      .then({ firstTime: false, events: [] });
  });
});
