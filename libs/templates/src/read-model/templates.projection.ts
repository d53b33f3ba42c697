import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent, upsertViewRows, viewRows, ViewTable } from '@billing/event-store';
import { TEMPLATE_GROUP_STREAM_TYPE, TemplateGroupEvent, TemplateGroupState, templateGroupEvolver } from '../domain';
import { templateGroupViewOf, TemplateGroupView } from '../views';

export const TEMPLATES_PROJECTION = 'templates.read-model';

const TEMPLATE_GROUPS: ViewTable<TemplateGroupState, TemplateGroupEvent, TemplateGroupView> = {
  table: 'template_groups',
  streamType: TEMPLATE_GROUP_STREAM_TYPE,
  evolver: templateGroupEvolver,
  toView: templateGroupViewOf,
};

/**
 * Keeps `template_groups`, which GET /templates and GET /templates/{id} read:
 * per batch one select of the stored states and one upsert of every touched
 * group at its latest state.
 */
export const templatesProjection: Projection = {
  name: TEMPLATES_PROJECTION,
  // invoice_documents is not a read model: its bytes are the record (their sha256 is in the log), never rebuilt.
  tables: ['template_groups'],
  streamTypes: [TEMPLATE_GROUP_STREAM_TYPE],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    await upsertViewRows('template_groups', await viewRows(TEMPLATE_GROUPS, events, tx), tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate template_groups`);
  },
};
