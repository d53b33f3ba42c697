import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { keysetPage, Page, positionPageToken, Versioned } from '@billing/platform';
import { TemplateGroupView } from '../views';

/** Reads of `template_groups` (kept by the templates.read-model projection), scoped by environment, newest first. */
@Injectable()
export class TemplatesReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async find(environmentId: string, id: string): Promise<Versioned<TemplateGroupView> | null> {
    const [row] = await queryRows<{ view: TemplateGroupView; version: number }>(
      this.dataSource.manager,
      `select view, version from template_groups where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? new Versioned(row.view, row.version) : null;
  }

  async list(environmentId: string, limit: number, pageToken: string | undefined): Promise<Page<TemplateGroupView>> {
    const values: unknown[] = [environmentId];
    let where = 'environment_id = $1';
    if (pageToken !== undefined) {
      values.push(positionPageToken.decode(pageToken).position);
      where += ` and position < $${values.length}`;
    }
    values.push(limit + 1);
    // The text gets a name of its own: `order by position` would sort a column named like it as text ('99' after '1005').
    const rows = await queryRows<{ view: TemplateGroupView; position_text: string }>(
      this.dataSource.manager,
      `select view, position::text as position_text from template_groups where ${where} order by position desc limit $${values.length}`,
      values,
    );
    return keysetPage(rows, { limit, codec: positionPageToken, key: (row) => ({ position: row.position_text }), item: (row) => row.view });
  }
}
