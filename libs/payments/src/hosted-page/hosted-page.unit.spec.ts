import { CSP_HEADER, sanitizedDocument } from './hosted-page.html';
import { FixedWindowRateLimiter } from './rate-limiter';

describe('the hosted page document', () => {
  it('given the markup the PDF layout understands, when shown, then kept with its width, align and colspan', () => {
    const html = '<h1>Invoice</h1><table><tr><td width="40%" align="right" colspan="2"><strong>A</strong><br><em>b</em></td></tr></table><hr>';
    expect(sanitizedDocument(html)).toBe(html);
  });

  it('given scripts, styles, links, images, forms, handlers or odd attribute values, when shown, then none survive but their text', () => {
    const html =
      '<script>alert(1)</script><style>body{}</style><p onclick="x()" style="color:red" class="c">hi <a href="https://evil.example">link</a></p>' +
      '<img src="https://evil.example/x.png"><form action="https://evil.example"><input name="t"></form><td width="expression(1)" align="javascript:x">c</td>' +
      '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example"><iframe src="x">f</iframe>&lt;b&gt;';
    expect(sanitizedDocument(html)).toBe('<p>hi link</p><td>c</td>&#60;b&#62;');
  });

  it('allows nothing but the page itself: its hashed style sheet, forms to itself, no framing', () => {
    expect(CSP_HEADER).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
  });
});

describe('FixedWindowRateLimiter', () => {
  it('given a limit of 2 a minute, when an address asks a third time in the minute, then refused; another address and the next minute are not', () => {
    const limiter = new FixedWindowRateLimiter(2);
    const start = 28_333_334 * 60_000 + 40_000; // 40 s into a minute
    expect([limiter.allow('a', start), limiter.allow('a', start + 1), limiter.allow('a', start + 2)]).toEqual([true, true, false]);
    expect(limiter.allow('b', start + 3)).toBe(true);
    expect(limiter.retryAfterSeconds(start + 2)).toBe(20);
    expect(limiter.allow('a', start + 20_000)).toBe(true);
  });
});
