import { deciderOf } from '@billing/shared-kernel';
import {
  decideAdvanceSubscription,
  decideAdvanceTrial,
  decideBillDue,
  decideBillFinal,
  decideBookUsageInvoice,
  decideCancelUsageEvent,
  decideRecordBillingFailure,
} from './billing-decisions';
import { decideBillProrations, decideDropChange } from './changes';
import { decideAdvancePause, decidePauseSubscription, decideResumeSubscription } from './pause';
import { subscriptionEvolver } from './subscription';
import {
  decideApplyDiscounts,
  decideCancelSubscription,
  decideCreateSubscription,
  decideEndDiscount,
  decideEndTrial,
  decideReactivateSubscription,
} from './subscription-decisions';

/**
 * The Subscription aggregate as one value: what it folds (subscriptionEvolver) and what each of its commands
 * decides — its life (subscription-decisions.ts), its billing (billing-decisions.ts), pauses and changes of items.
 * A change of items is priced with the catalog's prices as a fourth input (decideChangeItems,
 * decideApplyScheduledChange): those two are called as they are, outside the decider.
 */
export const subscriptionDecider = deciderOf(subscriptionEvolver, {
  CreateSubscription: decideCreateSubscription,
  CancelSubscription: decideCancelSubscription,
  EndTrial: decideEndTrial,
  ReactivateSubscription: decideReactivateSubscription,
  ApplyDiscounts: decideApplyDiscounts,
  EndDiscount: decideEndDiscount,
  BillDue: decideBillDue,
  BookUsageInvoice: decideBookUsageInvoice,
  AdvanceSubscription: decideAdvanceSubscription,
  AdvanceTrial: decideAdvanceTrial,
  CancelUsageEvent: decideCancelUsageEvent,
  RecordBillingFailure: decideRecordBillingFailure,
  BillFinal: decideBillFinal,
  PauseSubscription: decidePauseSubscription,
  ResumeSubscription: decideResumeSubscription,
  AdvancePause: decideAdvancePause,
  DropChange: decideDropChange,
  BillProrations: decideBillProrations,
});
