import { checkTemplateSyntax, renderTemplate, SANDBOX_LIMITS, TemplateRenderError } from './liquid-sandbox';
import { BUILT_IN_TEMPLATES } from './default-templates';
import { TEMPLATE_TYPES } from '../domain';

const en = { locale: 'en', currency: 'EUR' };
const outputLimit = 2_000_000;

function renderError(content: string, variables: Record<string, unknown> = {}): TemplateRenderError {
  try {
    renderTemplate(content, variables, en, outputLimit);
  } catch (error) {
    if (error instanceof TemplateRenderError) return error;
    throw error;
  }
  throw new Error('rendered without an error');
}

describe('the Liquid sandbox', () => {
  it('renders variables, loops and the formatting filters, HTML-escaping output', () => {
    const out = renderTemplate(
      '{% for l in lines %}{{ l.title }}={{ l.amount | money }};{% endfor %}{{ customer.name }}',
      { lines: [{ title: 'A', amount: 150 }], customer: { name: '<b>Ø&ł</b>' } },
      en,
      outputLimit,
    );
    expect(out).toBe('A=€1.50;&lt;b&gt;Ø&amp;ł&lt;/b&gt;');
    expect(
      renderTemplate('{{ 500 | money: "JPY" }} {{ "2026-01-02" | date }}', {}, { locale: 'fi', currency: 'EUR' }, outputLimit).replace(/[\u00a0\u202f]/g, ' '),
    ).toBe('500 ¥ 2.1.2026');
  });

  it('reports syntax errors with line and column', () => {
    expect(checkTemplateSyntax('ok {{ a }}')).toBeNull();
    expect(checkTemplateSyntax('line one\n{% if x %}\nno end')).toEqual({ line: 2, column: 1, message: expect.stringContaining('not closed') });
    expect(checkTemplateSyntax('a\n  {{ x | nosuchfilter }}')).toEqual({
      line: 2,
      column: 3,
      message: expect.stringContaining('undefined filter: nosuchfilter'),
    });
    expect(checkTemplateSyntax('{% nosuchtag %}')).toMatchObject({ line: 1, column: 1 });
  });

  it('refuses includes, renders and layouts when parsing: no file system, no other template', () => {
    for (const content of ["{% include '/etc/passwd' %}", "{% render 'invoice_pdf' %}", "{% layout 'x' %}", "a\n{% include 'x' %}"]) {
      expect(checkTemplateSyntax(content)).toMatchObject({ message: expect.stringContaining('not available') });
      expect(renderError(content).code).toBe('template-render-failed');
    }
  });

  it('reaches own properties only: prototypes and constructors render as nothing', () => {
    const out = renderTemplate(
      '[{{ constructor }}][{{ invoice.constructor }}][{{ invoice.__proto__ }}][{{ invoice.toString }}][{{ lines.constructor.name }}][{{ invoice["__proto__"].polluted }}][{{ lines.size }}]',
      { invoice: { id: 'x' }, lines: [1, 2] },
      en,
      outputLimit,
    );
    expect(out).toBe('[][][][][][][2]');
    renderTemplate('{% assign x = invoice.__proto__ %}{{ x.polluted }}', { invoice: {} }, en, outputLimit);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('stops a huge range at once (memory limit)', () => {
    const error = renderError('{% for i in (1..100000000) %}x{% endfor %}');
    expect(error.code).toBe('template-limit-exceeded');
    expect(error.message).toMatch(/line 1, column 1/);
  });

  it('stops nested loops by the render time limit', () => {
    const started = process.hrtime.bigint();
    const error = renderError('{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}');
    expect(error.code).toBe('template-limit-exceeded');
    expect(error.message).toMatch(/render limit/);
    // Not a timed assertion of speed: the limit is what stopped it, well before the loops' 10^10 iterations.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(SANDBOX_LIMITS.renderLimitMs * 20);
  });

  it('stops doubling strings with append (memory limit)', () => {
    expect(renderError("{% assign s = 'xxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}").code).toBe(
      'template-limit-exceeded',
    );
  });

  it('refuses output over the cap', () => {
    const error = renderError('{% for i in (1..10) %}{{ big | raw }}{% endfor %}', { big: 'x'.repeat(300_000) });
    expect(error).toMatchObject({ code: 'template-limit-exceeded', message: expect.stringContaining(`at most ${outputLimit}`) });
  });

  it('reports a filter that cannot format its value, with the line', () => {
    const error = renderError('\n{{ "abc" | money }}');
    expect(error).toMatchObject({
      code: 'template-render-failed',
      message: expect.stringMatching(/line 2, column 1: a filter could not format its value: money must be an integer/),
    });
  });

  it('the built-in templates parse', () => {
    for (const type of TEMPLATE_TYPES) expect(checkTemplateSyntax(BUILT_IN_TEMPLATES[type])).toBeNull();
  });
});
