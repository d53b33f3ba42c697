import { randomUUID } from 'node:crypto';
import { metadataAt } from '@billing/testing';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  decideCreateTemplateGroup,
  decideSetDefaultTemplateGroup,
  decideUpdateTemplateContent,
  decideUpdateTemplateGroup,
  defaultTemplateGroupEvolver,
  TemplateGroupState,
  templateGroupEvolver,
} from '../domain';
import { defaultTemplateGroupStream, templateGroupStream } from '../streams';
import { templatesProjection } from './templates.projection';

/** The `templates.read-model` projection on real Postgres: template groups made by the real deciders, then their rows. */
const spec = projectionSpec(templatesProjection);
const none = templateGroupEvolver.initialState();
const CREATED = '2026-01-15T10:00:00.000Z';
const LATER = '2026-01-16T08:30:00.000Z';
const defaults = { invoice_pdf: '<p>{{ invoice.handle }}</p>', credit_note_pdf: '<p>credit</p>', invoice_email_html: '<p>mail</p>' };
const rows = `select id, position::text, version, state, view from template_groups where environment_id = $1`;

const create = (templateGroupId: string) =>
  decideCreateTemplateGroup({ templateGroupId, input: { name: 'Nordic', locale: 'fi' }, defaults }, none, metadataAt(CREATED, 'template'));
const created = (id: string): TemplateGroupState => templateGroupEvolver.evolve(none, create(id)[0]);

describe('templates.read-model projection (Postgres)', () => {
  it('given a group created, then one row: its three templates in state and view, version 1, at the creating position', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const templates = [
      { id: 'template-1', type: 'invoice_pdf', content: defaults.invoice_pdf },
      { id: 'template-2', type: 'credit_note_pdf', content: defaults.credit_note_pdf },
      { id: 'template-3', type: 'invoice_email_html', content: defaults.invoice_email_html },
    ];
    await spec.given(append(templateGroupStream(env, id), create(id))).then(async (query, { given }) => {
      expect(await query(rows, [env])).toEqual([
        {
          id,
          position: given[0].globalPosition,
          version: 1,
          state: { status: 'active', id, name: 'Nordic', locale: 'fi', templates, createdAt: CREATED, updatedAt: CREATED },
          view: { id, name: 'Nordic', locale: 'fi', templates, createdAt: CREATED, updatedAt: CREATED },
        },
      ]);
    });
  });

  it('given a group, when it is renamed and a template rewritten in a later batch, then its row continues the stored state (position kept)', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const stream = templateGroupStream(env, id);
    const renamed = decideUpdateTemplateGroup({ templateGroupId: id, input: { name: 'Suomi', locale: 'fi-FI' } }, created(id), metadataAt(LATER));
    const state = templateGroupEvolver.evolve(created(id), renamed[0]);
    const rewritten = decideUpdateTemplateContent(
      { templateGroupId: id, templateId: 'template-2', content: '<p>hyvitys</p>', syntax: () => null },
      state,
      metadataAt(LATER),
    );
    await spec
      .given(append(stream, create(id)))
      .when(append(stream, renamed, LATER), append(stream, rewritten, LATER))
      .then(async (query, { given }) => {
        const [row] = await query<{ position: string; version: number; view: unknown }>(rows, [env]);
        expect(row.position).toBe(given[0].globalPosition);
        expect(row.version).toBe(3);
        expect(row.view).toEqual({
          id,
          name: 'Suomi',
          locale: 'fi-FI',
          templates: [
            { id: 'template-1', type: 'invoice_pdf', content: defaults.invoice_pdf },
            { id: 'template-2', type: 'credit_note_pdf', content: '<p>hyvitys</p>' },
            { id: 'template-3', type: 'invoice_email_html', content: defaults.invoice_email_html },
          ],
          createdAt: CREATED,
          updatedAt: LATER,
        });
      });
  });

  it('ignores the default group’s stream (another stream type, another table): no row', async () => {
    const env = randomUUID();
    const setDefault = decideSetDefaultTemplateGroup(randomUUID(), defaultTemplateGroupEvolver.initialState(), metadataAt(CREATED));
    await spec.given(append(defaultTemplateGroupStream(env), setDefault)).thenRows(rows, [env], []);
  });
});
