import { DiscountRequest, productsOfPrices, redeemDiscounts } from '@billing/coupons';
import { CommandSession } from '@billing/event-store';
import { CommandMetadata, FieldError, isUuid, ValidationError } from '@billing/shared-kernel';
import { InvoiceDiscount, RequestedLine } from '../domain';

/**
 * Coupons on draft invoices: redeemed when the draft is created or updated,
 * in its command's transaction (coupons' published redemption, counted
 * exactly), and the products of the prices its lines name (for appliesTo
 * coupons), read from the catalog's price streams through coupons.
 */

/** The requested lines with the product of each line's price; an unknown price is a 422 at /items/<i>/priceId. */
export async function withLineProducts(
  session: CommandSession,
  environmentId: string,
  items: readonly RequestedLine[] | null | undefined,
): Promise<readonly RequestedLine[] | null | undefined> {
  if (!items || !items.some((item) => item.priceId != null)) return items;
  const errors: FieldError[] = [];
  const priceIds = items.flatMap((item, i) => {
    if (item.priceId == null) return [];
    if (isUuid(item.priceId)) return [item.priceId.toLowerCase()];
    errors.push({ pointer: `/items/${i}/priceId`, detail: 'must be the UUID of a price' });
    return [];
  });
  const products = await productsOfPrices(session, environmentId, priceIds);
  const lines = items.map((item, i) => {
    if (item.priceId == null || !isUuid(item.priceId)) return item;
    const priceId = item.priceId.toLowerCase();
    if (!products.has(priceId)) errors.push({ pointer: `/items/${i}/priceId`, detail: 'names no price of this environment' });
    return { ...item, priceId, productId: products.get(priceId) ?? null };
  });
  if (errors.length > 0) throw new ValidationError('The invoice lines name unknown prices.', errors);
  return lines;
}

/**
 * The draft's coupons as a request names them, in its order: one the draft
 * has already (the same coupon, or the same promotion code in any case) keeps
 * its redemption — an update never counts a redemption twice — and a new one
 * is redeemed now in the invoice's currency. A first-time-only promotion code
 * is not redeemable on an invoice (409 promotion-code-restricted): an invoice
 * is no first subscription. The same coupon twice is a 422 at /discounts/<i>.
 */
export async function redeemInvoiceDiscounts(
  session: CommandSession,
  environmentId: string,
  invoiceId: string,
  currency: string,
  requests: readonly DiscountRequest[],
  kept: readonly InvoiceDiscount[],
  meta: CommandMetadata,
): Promise<InvoiceDiscount[]> {
  const discounts: InvoiceDiscount[] = [];
  for (const [index, request] of requests.entries()) {
    const pointer = `/discounts/${index}`;
    const existing = kept.find((discount) =>
      'couponId' in request ? discount.couponId === request.couponId : discount.promotionCode?.toLowerCase() === request.promotionCode.toLowerCase(),
    );
    const discount = existing ?? (await redeemOne(session, environmentId, invoiceId, currency, request, pointer, meta));
    if (discounts.some((earlier) => earlier.couponId === discount.couponId)) throw ValidationError.at(pointer, 'redeems a coupon already among the discounts');
    discounts.push(discount);
  }
  return discounts;
}

async function redeemOne(
  session: CommandSession,
  environmentId: string,
  invoiceId: string,
  currency: string,
  request: DiscountRequest,
  pointer: string,
  meta: CommandMetadata,
): Promise<InvoiceDiscount> {
  try {
    const [redeemed] = await redeemDiscounts(
      session,
      [request],
      { environmentId, redeemedBy: { type: 'invoice', id: invoiceId }, currency: currency.toUpperCase(), firstTimeCustomer: false, pointer: '/discounts' },
      meta,
    );
    const { id, couponId, promotionCodeId, promotionCode, name, percentOff, amountOff, productIds, minimumAmount } = redeemed;
    return { id, couponId, promotionCodeId, promotionCode, name, percentOff, amountOff, productIds, minimumAmount };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // Redeemed one at a time: its problems belong at this discount's index.
    throw new ValidationError(
      error.message,
      error.errors.map((field) => ({ ...field, pointer: field.pointer.replace(/^\/discounts\/0/, pointer) })),
    );
  }
}
