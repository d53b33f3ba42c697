import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent, streamBatches } from '@billing/event-store';
import { TEMPLATE_GROUP_STREAM_TYPE, TemplateGroupEvent, TemplateGroupState, templateGroupEvolver } from '../domain';
import { templateGroupViewOf } from '../views';

export const TEMPLATES_PROJECTION = 'templates.read-model';

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
    const streams = await streamBatches<TemplateGroupState>(events, TEMPLATE_GROUP_STREAM_TYPE, 'template_groups', tx);
    const rows: { environmentId: string; id: string; position: string; version: number; state: TemplateGroupState; view: unknown }[] = [];
    for (const stream of streams) {
      let state = stream.stored ?? templateGroupEvolver.initialState();
      let position: string | null = null;
      for (const event of stream.events) {
        state = templateGroupEvolver.evolve(state, { type: event.type, schemaVersion: event.schemaVersion, data: event.data } as TemplateGroupEvent);
        if (position === null && event.streamVersion === 1) position = event.globalPosition;
      }
      const view = templateGroupViewOf(state);
      if (view === null) continue;
      rows.push({ environmentId: stream.environmentId, id: stream.id, position: position ?? '0', version: stream.events[stream.events.length - 1].streamVersion, state, view });
    }
    if (rows.length === 0) return;
    await tx.query(
      `insert into template_groups (environment_id, id, position, version, state, view)
       select environment_id, id, position, version, state::jsonb, view::jsonb
         from unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::integer[], $5::text[], $6::text[]) as r(environment_id, id, position, version, state, view)
       on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state, view = excluded.view`,
      [
        rows.map((r) => r.environmentId),
        rows.map((r) => r.id),
        rows.map((r) => r.position),
        rows.map((r) => r.version),
        rows.map((r) => JSON.stringify(r.state)),
        rows.map((r) => JSON.stringify(r.view)),
      ],
    );
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`delete from template_groups`);
  },
};
