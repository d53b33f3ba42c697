import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { CommandPath, Written } from '@billing/event-store';
import {
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  IfMatch,
  Page,
  parseLimit,
  readQuery,
  ResourceIdPipe,
  resourceDocs,
  Versioned,
} from '@billing/platform';
import { childPointer, NotFoundError, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { defaultTemplateGroupEvolver, TemplateGroup, validateTemplateGroupInput } from '../domain';
import { CreateTemplateGroupCommand } from '../create-template-group/create-template-group.command';
import { resolveLocale } from '../rendering/formatting';
import { TemplatesReadModel } from '../read-model/templates.read-model';
import { SetDefaultTemplateGroupCommand } from '../set-default-group/set-default-group.command';
import { defaultTemplateGroupStream } from '../streams';
import { UpdateTemplateContentCommand } from '../update-template-content/update-template-content.command';
import { UpdateTemplateGroupCommand } from '../update-template-group/update-template-group.command';
import { TemplateGroupView, templateGroupViewOf, withDefault } from '../views';
import { TemplateContentBody, TemplateGroupBody, TemplateGroupDto, TemplateGroupPageDto } from './template.dto';

const ETAG = { etag: { description: 'the version of the template group', schema: { type: 'string', example: '"1"' } } };
const IF_MATCH = {
  name: 'if-match',
  required: false,
  description: 'The ETag of the version the change is based on (e.g. "3"); a stale one is a 409. Omit to apply to the current version.',
};
const GROUP_ID = { name: 'templateGroupId', format: 'uuid', description: 'the template group id' } as const;
const GROUP_ID_PIPE = new ResourceIdPipe('template group');
const TEMPLATE_ID_PIPE = new ResourceIdPipe('template');
const GROUP = resourceDocs({
  type: TemplateGroupDto,
  headers: ETAG,
  id: GROUP_ID,
  ifMatch: IF_MATCH,
  notFound: 'No such template group in this environment',
});

/** Template groups: POST creates a group with every type's built-in template; templates are edited one by one. */
@ApiTags('templates')
@Controller('templates')
export class TemplatesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly path: CommandPath,
    private readonly readModel: TemplatesReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @GROUP.create({
    summary: 'Create a template group',
    description:
      'Creates the group and all its templates (invoice_pdf, credit_note_pdf, invoice_email_html) with the built-in content. Answers 201 with its ETag and Location.',
    body: TemplateGroupBody,
    answer: 'Created',
    invalid: 'Invalid body: name not 1–250 characters, an unknown locale, or another property',
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<TemplateGroupView>> {
    const input = validateTemplateGroupInput(body, resolveLocale);
    const created = await this.commands.execute(new CreateTemplateGroupCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(created, await this.defaultGroupId(caller.environmentId), `/templates/${created.id}`);
  }

  @Get()
  @GROUP.list({ summary: 'List template groups', description: 'Newest first, keyset paging.', answer: 'A page of template groups', type: TemplateGroupPageDto })
  async list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<TemplateGroupView>> {
    const q = readQuery(query, ['limit', 'pageToken'] as const);
    const limit = parseLimit(q.limit);
    const page = await this.readModel.list(caller.environmentId, limit, q.pageToken === '' ? undefined : q.pageToken);
    const defaultId = await this.defaultGroupId(caller.environmentId);
    return { items: page.items.map((view) => withDefault(view, defaultId)), nextPageToken: page.nextPageToken };
  }

  @Get(':templateGroupId')
  @GROUP.read({ summary: 'Get a template group', answer: 'The template group' })
  async get(@Caller() caller: CallerContext, @Param('templateGroupId', GROUP_ID_PIPE) templateGroupId: string): Promise<Versioned<TemplateGroupView>> {
    const found = await this.readModel.find(caller.environmentId, templateGroupId);
    if (!found) throw new NotFoundError('template group', templateGroupId);
    return new Versioned(withDefault(found.resource, await this.defaultGroupId(caller.environmentId)), found.version);
  }

  @Put(':templateGroupId')
  @GROUP.write({
    summary: 'Rename a template group or change its locale',
    description: 'Replaces name and locale (an absent locale is en).',
    body: TemplateGroupBody,
    answer: 'The template group',
    conflict: 'If-Match is stale (version-conflict)',
    invalid: 'Invalid body, or a malformed If-Match (/headers/if-match)',
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('templateGroupId', GROUP_ID_PIPE) templateGroupId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<TemplateGroupView>> {
    const input = validateTemplateGroupInput(body, resolveLocale);
    const updated = await this.commands.execute(
      new UpdateTemplateGroupCommand(caller.environmentId, templateGroupId, input, expectedVersion, commandContext(caller, this.clock)),
    );
    return answer(updated, await this.defaultGroupId(caller.environmentId));
  }

  @Put(':templateGroupId/templates/:templateId')
  @GROUP.write({
    summary: "Replace a template's content",
    description:
      'The content is Liquid, checked when saved: a syntax error, an include/render/layout or an unknown filter is a 422 naming the line and column; content that exceeds a render limit on a sample invoice is a 422 template-limit-exceeded at /content. Answers the whole group.',
    params: [{ name: 'templateId', format: 'uuid', description: 'the id of one of the group’s templates' }],
    body: TemplateContentBody,
    answer: 'The template group',
    notFound: 'No such template group in this environment, or no such template in the group',
    conflict: 'If-Match is stale (version-conflict)',
    invalid:
      'content missing or too long (validation-failed), not valid Liquid (template-syntax-error, with line and column), or over a render limit on a sample invoice (template-limit-exceeded)',
    problems: { 503: 'The environment has as many documents waiting to render as it may (render-queue-full, with Retry-After)' },
  })
  async updateContent(
    @Caller() caller: CallerContext,
    @Param('templateGroupId', GROUP_ID_PIPE) templateGroupId: string,
    @Param('templateId', TEMPLATE_ID_PIPE) templateId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<TemplateGroupView>> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object {content}');
    const unknown = Object.keys(body).filter((key) => key !== 'content');
    if (unknown.length > 0)
      throw new ValidationError(
        'The request is invalid.',
        unknown.map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY })),
      );
    const updated = await this.commands.execute(
      new UpdateTemplateContentCommand(
        caller.environmentId,
        templateGroupId,
        templateId,
        (body as { content?: unknown }).content,
        expectedVersion,
        commandContext(caller, this.clock),
      ),
    );
    return answer(updated, await this.defaultGroupId(caller.environmentId));
  }

  @Put(':templateGroupId/default')
  @GROUP.action({
    summary: "Make a group the environment's default",
    description: 'No body (or {}). Documents render with the default group when none is named; an environment without one renders with the built-in templates.',
    ifMatch: false,
    answer: 'The template group (isDefault: true)',
    invalid: 'A body with any property',
  })
  async setDefault(
    @Caller() caller: CallerContext,
    @Param('templateGroupId', GROUP_ID_PIPE) templateGroupId: string,
    @Body() body: unknown,
  ): Promise<Versioned<TemplateGroupView>> {
    assertNoInput(body);
    const group = await this.commands.execute(new SetDefaultTemplateGroupCommand(caller.environmentId, templateGroupId, commandContext(caller, this.clock)));
    return answer(group, group.id);
  }

  private async defaultGroupId(environmentId: string): Promise<string | null> {
    return (await this.path.load(defaultTemplateGroupStream(environmentId), defaultTemplateGroupEvolver)).state.templateGroupId;
  }
}

/**
 * A write's answer: the group as its command left it, marked default when it
 * is the environment's default group, with its version for the ETag.
 */
function answer({ version, state }: Written<TemplateGroup>, defaultGroupId: string | null, location?: string): Versioned<TemplateGroupView> {
  return new Versioned(withDefault(templateGroupViewOf(state)!, defaultGroupId), version, location);
}
