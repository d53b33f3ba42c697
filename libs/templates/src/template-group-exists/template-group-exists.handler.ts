import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { TemplateGroupExistsQuery } from '@billing/invoicing';
import { templateGroupEvolver } from '../domain';
import { templateGroupStream } from '../streams';

/** Answers invoicing's port: a customer's templateGroupId must name a group of its environment (read from the log: never stale). */
@QueryHandler(TemplateGroupExistsQuery)
export class TemplateGroupExistsHandler implements IQueryHandler<TemplateGroupExistsQuery, boolean> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, templateGroupId }: TemplateGroupExistsQuery): Promise<boolean> {
    return (await this.commands.load(templateGroupStream(environmentId, templateGroupId), templateGroupEvolver)).state.status !== 'none';
  }
}
