import { Query } from '@nestjs/cqrs';
import { Quote } from '../domain';

/** POST /prices/{priceId}/quote: a read; `body` is the untrusted request body. */
export class QuotePriceQuery extends Query<Quote> {
  constructor(
    readonly environmentId: string,
    readonly priceId: string,
    readonly body: unknown,
  ) {
    super();
  }
}
