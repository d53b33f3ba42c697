import { parseDocument } from 'htmlparser2';
import { escapeHtml as escape, plainPage, strictPageCsp } from '@billing/platform';

/**
 * The hosted invoice page's HTML: server-rendered, usable without JavaScript, no external asset. The one style
 * sheet is inline and allowed by its hash (CSP_HEADER), so the page needs no nonce and no 'unsafe-inline'; the
 * invoice's recorded document (the template's output, untrusted) is reduced to the markup the PDF layout
 * understands (docs/templates.md) with none of its own styles, scripts or links.
 */

const STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1c1c;background:#f4f5f7;overflow-wrap:break-word}
main{max-width:52rem;margin:0 auto;padding:1rem}
.frame,.document{background:#fff;border:1px solid #dcdfe4;border-radius:.5rem;padding:1rem;margin-bottom:1rem}
.status{display:inline-block;font-weight:600;padding:.1rem .6rem;border-radius:1rem;background:#e8eaee}
.status-paid{background:#d9f2e3;color:#0f5a2e}.status-open{background:#fff1cc;color:#6b4b00}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:.75rem 0}dt{color:#555}dd{margin:0;font-weight:600}
.notice{padding:.5rem .75rem;border-radius:.4rem;background:#fde2e1;color:#7a1d17}.notice-ok{background:#d9f2e3;color:#0f5a2e}
form{display:grid;gap:.5rem;margin-top:.75rem}label{font-weight:600}
input{font:inherit;padding:.5rem;border:1px solid #b8bdc6;border-radius:.4rem;width:100%}
button{font:inherit;font-weight:600;padding:.6rem 1rem;border:0;border-radius:.4rem;background:#1f5eff;color:#fff;cursor:pointer}
a{color:#1f5eff}
.document{overflow-x:auto}
.document table{width:100%;border-collapse:collapse;margin:.5rem 0;font-size:.875rem}
.document th,.document td{padding:.25rem;vertical-align:top}
.document th:not([align]){text-align:left}
.document th{border-bottom:1px solid #dcdfe4}
.document h1{font-size:1.4rem}.document h2{font-size:1.2rem}.document h3{font-size:1rem}
@media (max-width:30rem){main{padding:.5rem}.frame,.document{padding:.75rem}.document table{font-size:.75rem}.document th,.document td{padding:.2rem .15rem}}`;

/** Nothing loads but this style sheet; forms post only here; the page is never framed. */
export const CSP_HEADER = strictPageCsp(STYLE);

export type PageState = 'open' | 'paid' | 'void' | 'credit_note';

export interface HostedPage {
  readonly lang: string;
  readonly title: string;
  readonly state: PageState;
  readonly statusLabel: string;
  readonly amountDue: string;
  readonly dueDate: string | null;
  readonly pdfHref: string;
  readonly pdfFileName: string;
  /** The pay form (state open with an online provider); null: no pay button. */
  readonly payForm: { readonly action: string; readonly nonce: string; readonly provider: string; readonly amount: string } | null;
  /** Why there is no pay form on an open invoice (no provider enabled). */
  readonly unpayable: string | null;
  readonly notice: { readonly kind: 'ok' | 'error'; readonly text: string } | null;
  /** The recorded document's HTML. */
  readonly documentHtml: string;
}

export function hostedPageHtml(page: HostedPage): string {
  const due = page.dueDate === null ? '' : `<dt>Due date</dt><dd id="due-date">${escape(page.dueDate)}</dd>`;
  const notice =
    page.notice === null ? '' : `<p class="notice${page.notice.kind === 'ok' ? ' notice-ok' : ''}" role="status" id="notice">${escape(page.notice.text)}</p>`;
  const pay =
    page.payForm === null
      ? page.unpayable === null
        ? ''
        : `<p>${escape(page.unpayable)}</p>`
      : `<form method="post" action="${escape(page.payForm.action)}">
<input type="hidden" name="nonce" value="${escape(page.payForm.nonce)}">
<input type="hidden" name="provider" value="${escape(page.payForm.provider)}">
<label for="token">${page.payForm.provider === 'stripe' ? 'Stripe PaymentMethod id (test mode: pm_card_visa)' : 'Card token (sandbox: tok_success, tok_decline, tok_insufficient_funds)'}</label>
<input id="token" name="token" required autocomplete="off" value="">
<button type="submit" id="pay">Pay ${escape(page.payForm.amount)}</button>
</form>`;
  return `<!doctype html>
<html lang="${escape(page.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escape(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<section class="frame" aria-label="Payment">
<p class="status status-${page.state}" id="status">${escape(page.statusLabel)}</p>
<dl><dt>Amount due</dt><dd id="amount-due">${escape(page.amountDue)}</dd>${due}</dl>
<p><a id="pdf" href="${escape(page.pdfHref)}" download="${escape(page.pdfFileName)}">Download PDF</a></p>
${notice}
${pay}
</section>
<article class="document">
${sanitizedDocument(page.documentHtml)}
</article>
</main>
</body>
</html>
`;
}

/** The same bytes for every token that opens nothing: an unknown, forged, rotated or other environment's link. */
export const NOT_FOUND_PAGE = plainPage('Not found', 'This invoice link is not valid. It may have been replaced: ask the sender for a new link.', STYLE);
export const TOO_MANY_REQUESTS_PAGE = plainPage('Too many requests', 'Too many requests from your address. Wait a minute and try again.', STYLE);

/** The elements the PDF layout understands, with the attributes it reads; anything else keeps only its text. */
const KEPT = new Set(['h1', 'h2', 'h3', 'p', 'div', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'b', 'em', 'i', 'br', 'hr']);
const VOID_ELEMENTS = new Set(['br', 'hr']);
/** Dropped with their content, as the PDF layout drops them. */
const DROPPED = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'iframe', 'object', 'svg', 'math']);
const ATTRIBUTES: Readonly<Record<string, RegExp>> = { align: /^(left|center|right)$/i, width: /^\d{1,3}%$/, colspan: /^\d{1,2}$/ };

interface Node {
  readonly type: string;
  readonly name?: string;
  readonly data?: string;
  readonly attribs?: Record<string, string>;
  readonly children?: readonly Node[];
}

export function sanitizedDocument(html: string): string {
  return serialise((parseDocument(html) as unknown as Node).children ?? []);
}

function serialise(nodes: readonly Node[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += escape(node.data ?? '');
    else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const name = (node.name ?? '').toLowerCase();
      if (DROPPED.has(name)) continue;
      if (!KEPT.has(name)) {
        out += serialise(node.children ?? []);
        continue;
      }
      const attributes = Object.entries(node.attribs ?? {})
        .filter(([attribute, value]) => ATTRIBUTES[attribute.toLowerCase()]?.test(value) === true)
        .map(([attribute, value]) => ` ${attribute.toLowerCase()}="${escape(value)}"`)
        .join('');
      out += VOID_ELEMENTS.has(name) ? `<${name}${attributes}>` : `<${name}${attributes}>${serialise(node.children ?? [])}</${name}>`;
    }
  }
  return out;
}
