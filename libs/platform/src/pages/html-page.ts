import { createHash } from 'node:crypto';

/**
 * What every server-rendered page for browsers shares (the hosted invoice page, the analytics page): one inline style
 * sheet allowed by its hash, nothing else loaded, never framed, never cached, no referrer; and the plain page
 * (404, 429) in the same style.
 */

/** Nothing loads but the page's own style sheet (by its hash: no nonce, no 'unsafe-inline'); forms post only here; never framed. */
export function strictPageCsp(style: string): string {
  return `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

/** The headers of every answer of a page (its 404 and 429 included). */
export function setPageHeaders(reply: { header(name: string, value: string): unknown }, csp: string): void {
  reply.header('cache-control', 'no-store');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', csp);
}

/** A page with a title and one sentence (`title` and `text` are the server's own words, never user input). */
export function plainPage(title: string, text: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
<main><section class="frame"><h1>${title}</h1><p>${text}</p></section></main>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
