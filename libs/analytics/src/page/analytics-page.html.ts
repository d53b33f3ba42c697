import { escapeHtml, plainPage, strictPageCsp } from '@billing/platform';
import type { MrrAnswer, ReceivablesAnswer, RevenueAnswer } from '../http/analytics-answers';
import { AGE_BUCKETS } from '../read-model/analytics.read-model';
import { chartSvg, Column, KindStyle, layoutChart } from './charts';

/**
 * The analytics page's HTML: server-rendered, no script, no external asset; one inline style sheet allowed by its hash
 * (the same strict CSP as the hosted invoice page). Three charts (MRR movements with the MRR line, invoiced against
 * collected, receivables by age) and their figures as tables, every amount formatted in the page's locale.
 */

/** Movements that raise MRR first (stacked above the axis), then those that lower it (below). */
const MRR_KINDS: Readonly<Record<string, KindStyle>> = {
  new: { colour: '#2e7d32', name: 'New' },
  expansion: { colour: '#66bb6a', name: 'Expansion' },
  reactivation: { colour: '#26a69a', name: 'Reactivation' },
  contraction: { colour: '#ffa726', name: 'Contraction' },
  churn: { colour: '#e53935', name: 'Churn' },
  mrr: { colour: '#1c1c1c', name: 'MRR' },
};
const REVENUE_KINDS: Readonly<Record<string, KindStyle>> = {
  invoiced: { colour: '#1f5eff', name: 'Invoiced' },
  collected: { colour: '#00a3a3', name: 'Collected' },
};
const RECEIVABLE_KINDS: Readonly<Record<string, KindStyle>> = { open: { colour: '#8e24aa', name: 'Open' } };
const BUCKET_NAMES: Readonly<Record<string, string>> = {
  current: 'Not yet due',
  '1-30': '1–30 days',
  '31-60': '31–60 days',
  '61-90': '61–90 days',
  'over-90': 'Over 90 days',
};

const STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1c1c;background:#f4f5f7;overflow-wrap:break-word}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.5rem 0}h2{font-size:1.1rem;margin:0 0 .5rem}
.frame{background:#fff;border:1px solid #dcdfe4;border-radius:.5rem;padding:1rem;margin-bottom:1rem}
svg{display:block;max-width:100%;height:auto}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0;font-size:.875rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem;margin-right:.3rem;vertical-align:-.05rem}
${Object.entries({ ...MRR_KINDS, ...REVENUE_KINDS, ...RECEIVABLE_KINDS })
  .map(([kind, { colour }]) => `.swatch-${kind}{background:${colour}}`)
  .join('\n')}
details{margin-top:.5rem}summary{cursor:pointer;color:#1f5eff}
.figures{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.8rem;font-variant-numeric:tabular-nums}
th,td{padding:.2rem .3rem;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}
thead th{border-bottom:1px solid #dcdfe4}
.meta{color:#555;font-size:.875rem}
@media (max-width:30rem){main{padding:.5rem}.frame{padding:.75rem}}`;

/** Nothing loads but this style sheet; the page is never framed (platform's strictPageCsp, as the hosted invoice page). */
export const ANALYTICS_CSP = strictPageCsp(STYLE);

/** The same bytes for every token that opens nothing: unknown, forged or expired. */
export const ANALYTICS_NOT_FOUND_PAGE = plainPage('Not found', 'This analytics link is not valid or has expired: ask for a new link.', STYLE);

/** A query the page cannot answer (a bad date, several currencies and none chosen): what is wrong, on a plain page. */
export function analyticsProblemPage(detail: string): string {
  return plainPage('Cannot show these analytics', escapeHtml(detail), STYLE);
}

export interface AnalyticsPage {
  readonly lang: string;
  readonly revenue: RevenueAnswer;
  readonly mrr: MrrAnswer;
  readonly receivables: ReceivablesAnswer;
  /** Minor units as money in the page's locale and the answer's currency. */
  readonly money: (amount: number) => string;
  /** A month's first day as its short name and year in the page's locale. */
  readonly month: (date: string) => string;
  readonly asOf: string;
}

export function mrrColumns(mrr: MrrAnswer, month: (date: string) => string): Column[] {
  return mrr.intervals.map((i) => ({
    key: i.start,
    label: month(i.start),
    stacks: [(['new', 'expansion', 'reactivation', 'contraction', 'churn'] as const).map((kind) => ({ kind, amount: i[kind] }))],
    marker: { kind: 'mrr', amount: i.mrr },
  }));
}

export function revenueColumns(revenue: RevenueAnswer, month: (date: string) => string): Column[] {
  return revenue.intervals.map((i) => ({
    key: i.start,
    label: month(i.start),
    stacks: [[{ kind: 'invoiced', amount: i.invoiced }], [{ kind: 'collected', amount: i.collected }]],
  }));
}

export function receivablesColumns(receivables: ReceivablesAnswer): Column[] {
  return AGE_BUCKETS.map((bucket) => ({
    key: bucket,
    label: bucket === 'over-90' ? '> 90' : bucket,
    stacks: [[{ kind: 'open', amount: receivables.buckets[bucket] }]],
  }));
}

export function analyticsPageHtml(page: AnalyticsPage): string {
  const { mrr, revenue, receivables, money, month } = page;
  const columnMonth = (key: string) => month(key);
  const currency = mrr.currency ?? 'no currency in use yet';
  const mrrChart = chartSvg(layoutChart(mrrColumns(mrr, month)), 'MRR and its movements per month', MRR_KINDS, money, columnMonth);
  const revenueChart = chartSvg(layoutChart(revenueColumns(revenue, month)), 'Invoiced and collected per month', REVENUE_KINDS, money, columnMonth);
  const receivablesChart = chartSvg(
    layoutChart(receivablesColumns(receivables)),
    'Open receivables by age past the due date',
    RECEIVABLE_KINDS,
    money,
    (key) => BUCKET_NAMES[key] ?? key,
  );
  const mrrTable = table(
    ['Month', 'MRR', 'New', 'Expansion', 'Reactivation', 'Contraction', 'Churn', 'Customers', 'Usage (not MRR)'],
    mrr.intervals.map((i) => [
      month(i.start),
      money(i.mrr),
      money(i.new),
      money(i.expansion),
      money(i.reactivation),
      money(i.contraction),
      money(i.churn),
      String(i.activeCustomers),
      money(i.usageRevenue),
    ]),
  );
  const revenueTable = table(
    ['Month', 'Invoiced', 'Collected', 'Tax', 'Credit notes'],
    revenue.intervals.map((i) => [month(i.start), money(i.invoiced), money(i.collected), money(i.tax), money(i.creditNotes)]),
  );
  const receivablesTable = table(
    ['Age', 'Open'],
    [...AGE_BUCKETS.map((bucket) => [BUCKET_NAMES[bucket], money(receivables.buckets[bucket])]), ['Total', money(receivables.total)]],
  );
  const last = mrr.intervals[mrr.intervals.length - 1];
  return `<!doctype html>
<html lang="${escapeHtml(page.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>Analytics</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Analytics</h1>
<p class="meta" id="scope">${escapeHtml(`${month(mrr.from)} – ${month(last.start)} · ${currency} · as of ${page.asOf}`)}</p>
<section class="frame" aria-labelledby="mrr-title" id="mrr">
<h2 id="mrr-title">MRR <span id="mrr-now">${escapeHtml(money(last.mrr))}</span></h2>
${legend(MRR_KINDS)}
${mrrChart}
<details class="figures"><summary>Figures</summary>${mrrTable}</details>
</section>
<section class="frame" aria-labelledby="revenue-title" id="revenue">
<h2 id="revenue-title">Revenue</h2>
${legend(REVENUE_KINDS)}
${revenueChart}
<details class="figures"><summary>Figures</summary>${revenueTable}</details>
</section>
<section class="frame" aria-labelledby="receivables-title" id="receivables">
<h2 id="receivables-title">Receivables <span id="receivables-total">${escapeHtml(money(receivables.total))}</span></h2>
${receivablesChart}
<details class="figures"><summary>Figures</summary>${receivablesTable}</details>
</section>
</main>
</body>
</html>
`;
}

function legend(kinds: Readonly<Record<string, KindStyle>>): string {
  const items = Object.entries(kinds).map(([kind, { name }]) => `<li><span class="swatch swatch-${kind}"></span>${escapeHtml(name)}</li>`);
  return `<ul class="legend">${items.join('')}</ul>`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = (row: readonly string[], tag: 'th' | 'td') => `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${cells(head, 'th')}</thead><tbody>${rows.map((row) => cells(row, 'td')).join('')}</tbody></table>`;
}
