import { deciderSpec, metadataAt } from '@billing/testing';
import {
  decideCreateTemplateGroup,
  decideRecordInvoiceDocument,
  decideSetDefaultTemplateGroup,
  decideUpdateTemplateContent,
  decideUpdateTemplateGroup,
  defaultTemplateGroupEvolver,
  invoiceDocumentEvolver,
  RenderedDocument,
  templateGroupEvolver,
  TemplateGroupCreated,
  validateTemplateGroupInput,
} from './index';

const meta = metadataAt('2026-02-01T12:00:00.000Z', 'tpl');
const DEFAULTS = { invoice_pdf: 'pdf', credit_note_pdf: 'credit', invoice_email_html: 'email' };
const created: TemplateGroupCreated = {
  type: 'TemplateGroupCreated',
  schemaVersion: 1,
  data: {
    templateGroupId: 'g-1',
    name: 'Nordic',
    locale: 'fi',
    templates: [
      { id: 't-1', type: 'invoice_pdf', content: 'pdf' },
      { id: 't-2', type: 'credit_note_pdf', content: 'credit' },
      { id: 't-3', type: 'invoice_email_html', content: 'email' },
    ],
    createdAt: '2026-01-01T00:00:00.000Z',
  },
};
const groups = deciderSpec(templateGroupEvolver);
const parses = () => null;

describe('TemplateGroup deciders', () => {
  it('create: a group with one template of every type, ids from the metadata', () => {
    groups
      .given([])
      .when((state) =>
        decideCreateTemplateGroup(
          { templateGroupId: 'g-1', input: { name: 'Nordic', locale: 'fi' }, defaults: DEFAULTS },
          state,
          metadataAt('2026-01-01T00:00:00.000Z', 't'),
        ),
      )
      .then([created]);
  });

  it('create: an existing group is a conflict', () => {
    groups
      .given([created])
      .when((state) => decideCreateTemplateGroup({ templateGroupId: 'g-1', input: { name: 'x', locale: 'en' }, defaults: DEFAULTS }, state, meta))
      .thenThrows({ kind: 'conflict' });
  });

  it('update: records the new name and locale in full; the same again records nothing; a missing group is a 404', () => {
    groups
      .given([created])
      .when((state) => decideUpdateTemplateGroup({ templateGroupId: 'g-1', input: { name: 'Deutsch', locale: 'de' } }, state, meta))
      .then([
        {
          type: 'TemplateGroupUpdated',
          schemaVersion: 1,
          data: { templateGroupId: 'g-1', name: 'Deutsch', locale: 'de', updatedAt: '2026-02-01T12:00:00.000Z' },
        },
      ]);
    groups
      .given([created])
      .when((state) => decideUpdateTemplateGroup({ templateGroupId: 'g-1', input: { name: 'Nordic', locale: 'fi' } }, state, meta))
      .then([]);
    groups
      .given([])
      .when((state) => decideUpdateTemplateGroup({ templateGroupId: 'g-1', input: { name: 'x', locale: 'en' } }, state, meta))
      .thenThrows({ kind: 'not_found' });
  });

  it('content: records the template’s new content with its type', () => {
    groups
      .given([created])
      .when((state) => decideUpdateTemplateContent({ templateGroupId: 'g-1', templateId: 't-3', content: '<p>{{ x }}</p>', syntax: parses }, state, meta))
      .then([
        {
          type: 'TemplateContentUpdated',
          schemaVersion: 1,
          data: { templateGroupId: 'g-1', templateId: 't-3', type: 'invoice_email_html', content: '<p>{{ x }}</p>', updatedAt: '2026-02-01T12:00:00.000Z' },
        },
      ]);
    groups
      .given([created])
      .when((state) => decideUpdateTemplateContent({ templateGroupId: 'g-1', templateId: 't-1', content: 'pdf', syntax: parses }, state, meta))
      .then([]);
  });

  it('content: a syntax error is a 422 at /content with line and column', () => {
    const syntax = () => ({ message: 'tag {% if %} not closed', line: 3, column: 7 });
    groups
      .given([created])
      .when((state) => decideUpdateTemplateContent({ templateGroupId: 'g-1', templateId: 't-1', content: 'x', syntax }, state, meta))
      .thenThrows({
        kind: 'validation',
        code: 'template-syntax-error',
        errors: [{ pointer: '/content', detail: 'line 3, column 7: tag {% if %} not closed', line: 3, column: 7 }],
      });
  });

  it('content: not a string, too long, an unknown template or group', () => {
    const update = (templateId: string, content: unknown) => (state: Parameters<typeof decideUpdateTemplateContent>[1]) =>
      decideUpdateTemplateContent({ templateGroupId: 'g-1', templateId, content, syntax: parses }, state, meta);
    groups
      .given([created])
      .when(update('t-1', 5))
      .thenThrows({ code: 'validation-failed', errors: [{ pointer: '/content', detail: expect.any(String) }] });
    groups
      .given([created])
      .when(update('t-1', 'x'.repeat(100_001)))
      .thenThrows({ code: 'validation-failed' });
    groups.given([created]).when(update('t-9', 'x')).thenThrows({ kind: 'not_found' });
    groups.given([]).when(update('t-1', 'x')).thenThrows({ kind: 'not_found' });
  });

  it('evolve: content and name changes fold onto the group', () => {
    const state = [
      created,
      {
        type: 'TemplateContentUpdated',
        schemaVersion: 1,
        data: { templateGroupId: 'g-1', templateId: 't-2', type: 'credit_note_pdf', content: 'new', updatedAt: '2026-01-02T00:00:00.000Z' },
      },
      { type: 'TemplateGroupUpdated', schemaVersion: 1, data: { templateGroupId: 'g-1', name: 'N2', locale: 'en', updatedAt: '2026-01-03T00:00:00.000Z' } },
    ].reduce((s, e) => templateGroupEvolver.evolve(s, e as never), templateGroupEvolver.initialState());
    expect(state).toMatchObject({
      name: 'N2',
      locale: 'en',
      updatedAt: '2026-01-03T00:00:00.000Z',
      templates: [{ content: 'pdf' }, { content: 'new' }, { content: 'email' }],
    });
  });
});

describe('the templates evolvers and an event type they do not know (from a newer release)', () => {
  const unknownEvent = { type: 'SomethingNewer', schemaVersion: 1, data: { templateGroupId: 'g-9', name: 'not a group' } } as never;
  it.each([
    ['the template group', templateGroupEvolver, [created]],
    ['the template group before its creation', templateGroupEvolver, []],
    [
      'the default group',
      defaultTemplateGroupEvolver,
      [{ type: 'DefaultTemplateGroupSet', schemaVersion: 1, data: { templateGroupId: 'g-1', setAt: '2026-01-01T00:00:00.000Z' } }],
    ],
    ['the invoice document before its rendering', invoiceDocumentEvolver, []],
  ] as const)('given %s, when an unknown event folds, then the state is as it was', (_name, evolver, given) => {
    const before = given.reduce((state: unknown, event) => evolver.evolve(state as never, event as never), evolver.initialState());
    expect(evolver.evolve(before as never, unknownEvent)).toBe(before);
  });
});

describe('validateTemplateGroupInput', () => {
  const locales = (tag: string) => (tag === 'fi' || tag === 'en' ? tag : null);
  it('accepts a name with an optional locale (default en)', () => {
    expect(validateTemplateGroupInput({ name: 'A' }, locales)).toEqual({ name: 'A', locale: 'en' });
    expect(validateTemplateGroupInput({ name: 'A', locale: 'fi' }, locales)).toEqual({ name: 'A', locale: 'fi' });
  });
  it('reports every problem at once', () => {
    expect(() => validateTemplateGroupInput({ name: '', locale: 'xx', other: 1 }, locales)).toThrow(
      expect.objectContaining({
        errors: [
          { pointer: '/other', detail: expect.any(String) },
          { pointer: '/name', detail: expect.any(String) },
          { pointer: '/locale', detail: expect.any(String) },
        ],
      }),
    );
    expect(() => validateTemplateGroupInput([], locales)).toThrow(expect.objectContaining({ code: 'validation-failed' }));
  });
});

describe('the default group decider', () => {
  const spec = deciderSpec(defaultTemplateGroupEvolver);
  const set = { type: 'DefaultTemplateGroupSet' as const, schemaVersion: 1, data: { templateGroupId: 'g-1', setAt: '2026-01-01T00:00:00.000Z' } };
  it('sets a group; the same again records nothing; another replaces it', () => {
    spec
      .given([])
      .when((state) => decideSetDefaultTemplateGroup('g-1', state, meta))
      .then([{ ...set, data: { templateGroupId: 'g-1', setAt: '2026-02-01T12:00:00.000Z' } }]);
    spec
      .given([set])
      .when((state) => decideSetDefaultTemplateGroup('g-1', state, meta))
      .then([]);
    spec
      .given([set])
      .when((state) => decideSetDefaultTemplateGroup('g-2', state, meta))
      .then([{ ...set, data: { templateGroupId: 'g-2', setAt: '2026-02-01T12:00:00.000Z' } }]);
  });
});

describe('the invoice document decider', () => {
  const spec = deciderSpec(invoiceDocumentEvolver);
  const document: RenderedDocument = {
    invoiceId: 'i-1',
    invoiceType: 'invoice',
    handle: 'INV-1',
    templateType: 'invoice_pdf',
    templateGroupId: null,
    templateGroupVersion: null,
    locale: 'en',
    fallback: null,
    sha256: 'a'.repeat(64),
    byteLength: 10,
    htmlSha256: 'b'.repeat(64),
    htmlByteLength: 5,
  };
  const rendered = { type: 'InvoiceDocumentRendered' as const, schemaVersion: 1, data: { ...document, renderedAt: '2026-02-01T12:00:00.000Z' } };
  it('records the first rendering; a recorded document is never recorded again', () => {
    spec
      .given([])
      .when((state) => decideRecordInvoiceDocument(document, state, meta))
      .then([rendered]);
    spec
      .given([rendered])
      .when((state) => decideRecordInvoiceDocument({ ...document, sha256: 'c'.repeat(64) }, state, meta))
      .then([]);
  });
});
