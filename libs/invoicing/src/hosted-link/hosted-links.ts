import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, HOSTED_LINK_SECRET_REQUIRED, HOSTED_PAGE_PATH } from '@billing/platform';
import { Invoice } from '../domain';
import { HostedLinkKeys, hostedLinkKeys, HostedLinkTarget, openHostedLink, sealHostedLink } from './hosted-link-token';

export type LinkedInvoice = Pick<Invoice, 'id' | 'status' | 'hostedLinkVersion'>;

/**
 * Hosted invoice page links: the link of a booked invoice (null for a draft, which has no page) and the invoice a
 * token names. Stateless (the token carries the sealed ids, see hosted-link-token.ts): whoever serves the page
 * checks the link version against the invoice's current one, which is what makes a rotated link stop working.
 */
@Injectable()
export class HostedLinks {
  private readonly keys: HostedLinkKeys;
  private readonly baseUrl: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.hostedPages.linkSecret === null) throw new Error(HOSTED_LINK_SECRET_REQUIRED);
    this.keys = hostedLinkKeys(config.hostedPages.linkSecret);
    this.baseUrl = config.hostedPages.publicBaseUrl;
  }

  /** `hostedInvoiceUrl`: the link of a booked (or void) invoice or credit note; null for a draft. */
  urlOf(environmentId: string, invoice: LinkedInvoice): string | null {
    if (invoice.status === 'draft') return null;
    const token = sealHostedLink(this.keys, { environmentId, invoiceId: invoice.id, linkVersion: invoice.hostedLinkVersion ?? 0 });
    return `${this.baseUrl}${HOSTED_PAGE_PATH}/${token}`;
  }

  /** What a token names, or null; the caller still compares linkVersion with the invoice's. */
  open(token: string): HostedLinkTarget | null {
    return openHostedLink(this.keys, token);
  }
}
