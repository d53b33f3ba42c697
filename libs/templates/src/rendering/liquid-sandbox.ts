import { Liquid, LiquidError, Tag, TagToken, TopLevelToken } from 'liquidjs';
import { DomainError } from '@billing/shared-kernel';
import { SyntaxProblem } from '../domain';
import { FormattingError, formatDate, formatMoney, formatNumber, formatPercent } from './formatting';

/**
 * Templates are untrusted input (anyone with a token for the environment
 * writes them), rendered in the service's own process. What bounds them:
 * - no file system and no other template: `include`, `render` and `layout`
 *   are refused when the template is parsed (so a save fails), and the
 *   engine's template lookup is an empty in-memory map besides;
 * - own properties only: `constructor`, `__proto__`, `toString` and friends
 *   render as nothing, and the variables are plain JSON copies anyway;
 * - liquidjs's DoS limits: `parseLimit` (template length), `renderLimit`
 *   (milliseconds per render, checked between tags), `memoryLimit` (what
 *   ranges, `append`, `join`, `split` and the like may allocate: a
 *   `(1..100000000)` range fails at once);
 * - our own cap on the rendered text, by the invoice's size (DocumentBudget;
 *   liquidjs builds output as string ropes, cheap in memory, so this check
 *   after the render is enough): it is what the PDF layout has to lay out;
 * - unknown filters are syntax errors (`strictFilters`); output is
 *   HTML-escaped unless a template says `| raw`, so customer data cannot
 *   inject markup into a document or the HTML preview.
 */
export const SANDBOX_LIMITS = Object.freeze({
  parseLimit: 200_000,
  renderLimitMs: 1_000,
  memoryLimit: 2_000_000,
});

/** A template that failed to render: 422, with the line and column when liquidjs knows them. */
export class TemplateRenderError extends DomainError {
  constructor(code: 'template-render-failed' | 'template-limit-exceeded', message: string) {
    super('validation', code, message);
  }
}

class RefusedTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
    super(token, remainTokens, liquid);
    throw new Error(`{% ${token.name} %} is not available: a template cannot read files or other templates`);
  }
  *render(): Generator<unknown, void, unknown> {
    /* never constructed */
  }
}

export interface RenderSettings {
  readonly locale: string;
  /** The currency `money` formats in when the template names none (the invoice's). */
  readonly currency: string;
}

function engine(settings: RenderSettings): Liquid {
  const liquid = new Liquid({
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: false,
    templates: {},
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    outputEscape: 'escape',
    parseLimit: SANDBOX_LIMITS.parseLimit,
    renderLimit: SANDBOX_LIMITS.renderLimitMs,
    memoryLimit: SANDBOX_LIMITS.memoryLimit,
    timezoneOffset: 0,
    locale: settings.locale,
  });
  for (const name of ['include', 'render', 'layout']) liquid.registerTag(name, RefusedTag);
  liquid.registerFilter('money', (amount: unknown, currency: unknown = settings.currency) => formatMoney(amount, currency, settings.locale));
  liquid.registerFilter('date', (value: unknown, style: unknown = 'medium') => formatDate(value, settings.locale, style));
  liquid.registerFilter('number', (value: unknown, decimals: unknown = 4) => formatNumber(value, settings.locale, decimals));
  liquid.registerFilter('percent', (value: unknown) => formatPercent(value, settings.locale));
  return liquid;
}

/** The syntax check: engine settings do not change what parses, so one engine serves every check. */
const checker = engine({ locale: 'en', currency: 'EUR' });

function positionOf(error: unknown): { line: number; column: number } | null {
  const token = (error as { token?: { getPosition?: () => [number, number] } }).token;
  const position = token?.getPosition?.();
  return position ? { line: position[0], column: position[1] } : null;
}

/** liquidjs appends ", line:3, col:5" to its messages; the problem says it its own way. */
function messageOf(error: unknown): string {
  const original = error instanceof LiquidError ? (error.originalError?.message ?? error.message) : error instanceof Error ? error.message : String(error);
  return original.replace(/, line:\d+, col:\d+$/, '');
}

/** null when `content` parses; else where and why it does not. */
export function checkTemplateSyntax(content: string): SyntaxProblem | null {
  try {
    checker.parse(content);
    return null;
  } catch (error) {
    const position = positionOf(error) ?? { line: 1, column: 1 };
    return { message: messageOf(error), ...position };
  }
}

/**
 * Renders a template with the document variables (plain JSON), in the
 * sandbox above. Synchronous: the render limit bounds how long the event
 * loop is held. Every failure is a TemplateRenderError naming the line.
 */
export function renderTemplate(content: string, variables: Record<string, unknown>, settings: RenderSettings, outputLimit: number): string {
  let output: string;
  try {
    output = engine(settings).parseAndRenderSync(content, variables) as string;
  } catch (error) {
    const message = messageOf(error);
    const position = positionOf(error);
    const where = position ? `line ${position.line}, column ${position.column}: ` : '';
    if (/limit exceeded/.test(message) || error instanceof RangeError) {
      throw new TemplateRenderError(
        'template-limit-exceeded',
        `The template was stopped: ${where}${message} (limits: ${SANDBOX_LIMITS.renderLimitMs} ms, ${SANDBOX_LIMITS.memoryLimit} allocated items).`,
      );
    }
    const cause = error instanceof LiquidError && error.originalError instanceof FormattingError ? 'a filter could not format its value: ' : '';
    throw new TemplateRenderError('template-render-failed', `The template failed to render: ${where}${cause}${message}`);
  }
  if (output.length > outputLimit) {
    throw new TemplateRenderError(
      'template-limit-exceeded',
      `The template rendered ${output.length} characters; at most ${outputLimit} are allowed for this invoice.`,
    );
  }
  return output;
}
