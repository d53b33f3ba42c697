import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EnvironmentClock, Public, readQuery, ScopedClock, setPageHeaders } from '@billing/platform';
import { DomainError } from '@billing/shared-kernel';
import { formatDate, formatMoney, resolveLocale } from '@billing/templates';
import { AnalyticsAnswers } from '../http/analytics-answers';
import { AnalyticsLinks } from './analytics-links';
import { ANALYTICS_CSP, ANALYTICS_NOT_FOUND_PAGE, analyticsPageHtml, analyticsProblemPage } from './analytics-page.html';

const HTML = { 'text/html': { schema: { type: 'string' } } };
/** Months the page shows when the link does not say: the current one and the eleven before it. */
const DEFAULT_MONTHS = 12;

/**
 * The analytics page (issue 28 §3): `GET /analytics?token=<token>[&from=&to=&currency=]`, what a signed link from
 * `POST /analytics/links` opens in a browser (which cannot send the bearer header). The token names the environment
 * and its expiry (real time, whatever the environment's test clock says); an unknown, forged or expired one answers
 * the same 404 page. Figures in the environment's time, like the API; numbers in the browser's first Accept-Language
 * locale (environments have no locale setting), else `en`.
 */
@ApiTags('Analytics')
@Public()
@Controller('analytics')
export class AnalyticsPageController {
  constructor(
    private readonly links: AnalyticsLinks,
    private readonly answers: AnalyticsAnswers,
    private readonly environmentClock: EnvironmentClock,
    private readonly clock: ScopedClock,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The analytics page: MRR movements, revenue and receivables as server-rendered SVG charts (HTML)',
    description:
      'Opened with the link POST /analytics/links answers, no bearer header. Monthly; from/to default to the last 12 months, ' +
      'currency as in GET /analytics/mrr. Numbers in the Accept-Language locale, else en. See README, Analytics.',
    security: [],
  })
  @ApiProduces('text/html')
  @ApiQuery({ name: 'token', required: true, description: 'The token of a link from POST /analytics/links.', schema: { type: 'string' } })
  @ApiQuery({
    name: 'from',
    required: false,
    description: 'First month’s day (UTC), inclusive. Default: the first of the month 11 months ago.',
    schema: { type: 'string', format: 'date' },
  })
  @ApiQuery({ name: 'to', required: false, description: 'Exclusive end (UTC). Default: the first of next month.', schema: { type: 'string', format: 'date' } })
  @ApiQuery({ name: 'currency', required: false, description: 'ISO 4217; required when several are in use.', schema: { type: 'string' } })
  @ApiResponse({ status: 200, description: 'The page', content: HTML })
  @ApiResponse({ status: 404, description: 'The token is unknown, forged or expired: a plain page', content: HTML })
  @ApiResponse({
    status: 422,
    description: 'A query the page cannot answer (bad date, unknown parameter, no currency chosen among several): a plain page',
    content: HTML,
  })
  async page(
    @Query() query: Record<string, unknown>,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    setPageHeaders(reply, ANALYTICS_CSP);
    reply.header('content-type', 'text/html; charset=utf-8');
    const target = this.links.open(query.token);
    // A link expires in real time (the base clock), as it was created: never by the environment's test clock.
    if (target === null || this.clock.base.now().getTime() >= target.expiresAt.getTime()) {
      reply.status(404);
      return ANALYTICS_NOT_FOUND_PAGE;
    }
    const now = await this.environmentClock.now(target.environmentId);
    const locale = localeOf(acceptLanguage);
    try {
      const q = readQuery(query, ['token', 'from', 'to', 'currency'] as const);
      const { revenue, mrr, receivables } = await this.clock.runAt(now, () =>
        this.answers.all(target.environmentId, {
          from: q.from ?? monthsBefore(now, DEFAULT_MONTHS - 1),
          to: q.to ?? monthsBefore(now, -1),
          currency: q.currency,
        }),
      );
      const monthFormat = new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' });
      const plain = new Intl.NumberFormat(locale);
      return analyticsPageHtml({
        lang: locale,
        revenue,
        mrr,
        receivables,
        money: (amount) => (mrr.currency === null ? plain.format(amount) : formatMoney(amount, mrr.currency, locale)),
        month: (date) => monthFormat.format(new Date(`${date}T00:00:00Z`)),
        asOf: formatDate(mrr.asOf, locale, 'medium'),
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      reply.status(422);
      const details = error.errors.map(({ pointer, detail }) => `${pointer.replace(/^\/query\//, '')} ${detail}`);
      return analyticsProblemPage(details.length > 0 ? details.join('; ') : error.message);
    }
  }
}

/** The first tag of Accept-Language that Intl formats (`fi-FI,fi;q=0.9` → `fi-FI`), else `en`. */
export function localeOf(acceptLanguage: string | undefined): string {
  const first = acceptLanguage?.split(',')[0]?.split(';')[0]?.trim();
  return (first && resolveLocale(first)) || 'en';
}

/** The first day (UTC) of the month `months` before `now`'s (negative: after). */
function monthsBefore(now: Date, months: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1)).toISOString().slice(0, 10);
}
