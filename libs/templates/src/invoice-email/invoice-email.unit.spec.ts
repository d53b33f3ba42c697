import { textOf } from './invoice-email.query';

describe("an invoice e-mail's plain-text alternative", () => {
  it('keeps the text, one line per block, entities decoded, markup gone', () => {
    const html = '<p>Hello  Acme &amp; Co,</p>\n<p>Invoice INV-7: <strong>€1,234.00</strong>, due 5 Mar 2026.</p><ul><li>one</li><li>two</li></ul>';
    expect(textOf(html)).toBe('Hello Acme & Co,\nInvoice INV-7: €1,234.00, due 5 Mar 2026.\none\ntwo');
  });

  it('never lets a tag through, even one a template wrote with | raw', () => {
    expect(textOf('<script>alert(1)</script><p>ok</p>')).not.toContain('<');
  });
});
