import { pageTokenCodec, tokenField } from '@billing/platform';
import { TAX_CODE_MAX_LENGTH } from '../domain';

/** The keys of the invoicing lists' page tokens, checked by the one codec every list uses. */

/** Invoices, newest first: `toISOString()` of the row's created_at, then its id. */
export const INVOICE_PAGE_TOKEN = pageTokenCodec({ createdAt: tokenField.instant, id: tokenField.uuid });

/** Tax codes, by code. */
export const TAX_CODE_PAGE_TOKEN = pageTokenCodec({ code: tokenField.text(TAX_CODE_MAX_LENGTH) });
