import { ProblemType } from '@billing/platform';

/** The templates context's problem types (served at /problems/<code>). */
export const TEMPLATES_PROBLEMS: Record<string, ProblemType> = {
  'template-syntax-error': {
    status: 422,
    title: 'Unprocessable Content',
    description:
      'The template is not valid Liquid, or uses what the sandbox refuses (include, render, layout, an unknown filter); the error at /content names the line and column (also as its `line` and `column` members).',
  },
  'template-render-failed': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The template failed to render this invoice (the detail names the line and why, e.g. a filter given a value it cannot format).',
  },
  'template-limit-exceeded': {
    status: 422,
    title: 'Unprocessable Content',
    description:
      'The template was stopped: it ran longer than the render time limit, allocated more than the memory limit, or printed more characters or pages than the invoice allows. When a template is saved, it is rendered against a sample invoice under the same limits; the error at /content says which one it exceeded.',
  },
  'render-queue-full': {
    status: 503,
    title: 'Service Unavailable',
    description: 'The environment already has as many documents waiting to render as it may (TEMPLATE_RENDER_QUEUE); retry after the Retry-After seconds.',
  },
  'invoice-document-recorded': {
    status: 409,
    title: 'Conflict',
    description:
      "The invoice is booked: its document was recorded with another template group, and a booked invoice's document never changes (omit templateGroupId).",
  },
};
