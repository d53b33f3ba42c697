import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { ValidationError } from '@billing/shared-kernel';
import { decideUpdateTemplateContent, existingTemplateGroup, TemplateContentUpdatedData, TemplateGroup, templateGroupEvolver } from '../domain';
import { documentTypeOf } from '../rendering/render-document';
import { checkTemplateSyntax, TemplateRenderError } from '../rendering/liquid-sandbox';
import { RenderPool } from '../rendering/render-pool';
import { SAMPLE_INVOICE } from '../rendering/sample-invoice';
import { templateGroupStream } from '../streams';
import { UpdateTemplateContentCommand } from './update-template-content.command';

@CommandHandler(UpdateTemplateContentCommand)
export class UpdateTemplateContentHandler implements ICommandHandler<UpdateTemplateContentCommand, Written<TemplateGroup>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly renderer: RenderPool,
  ) {}

  async execute(command: UpdateTemplateContentCommand): Promise<Written<TemplateGroup>> {
    const { environmentId, templateGroupId, templateId, content, expectedVersion, context } = command;
    const stream = templateGroupStream(environmentId, templateGroupId);
    const update = { templateGroupId, templateId, content, syntax: checkTemplateSyntax };
    // The domain's checks first (its 404 and 422s), then the dry render of a content that would be recorded.
    const current = (await this.commands.load(stream, templateGroupEvolver)).state;
    const [change] = decideUpdateTemplateContent(update, current, context.meta);
    if (change && current.status === 'active') await this.dryRender(environmentId, current, change.data);
    const { state, version } = await this.commands.handle(
      stream,
      templateGroupEvolver,
      (latest) => decideUpdateTemplateContent(update, latest, context.meta),
      context,
      { expectedVersion, conflicts: { retries: 1 } },
    );
    return { id: templateGroupId, version, state: existingTemplateGroup(state, templateGroupId) };
  }

  /**
   * The template rendered against SAMPLE_INVOICE (as a credit note for
   * credit_note_pdf), on the render pool under its limits. Only a limit is
   * refused: a template failing on the sample (a filter given a value it
   * cannot format) may depend on what real invoices hold, and a booking
   * falls back to the built-in template for it anyway.
   */
  private async dryRender(environmentId: string, group: TemplateGroup, change: TemplateContentUpdatedData): Promise<void> {
    const sample = change.type === 'credit_note_pdf' ? { ...SAMPLE_INVOICE, type: 'credit_note' as const } : SAMPLE_INVOICE;
    const templates = [{ id: change.templateId, type: documentTypeOf(sample), content: change.content }];
    try {
      await this.renderer.render(
        sample,
        environmentId,
        { id: group.id, locale: group.locale, templates },
        { fallBackToBuiltIn: false, documentDate: new Date(sample.createdAt) },
      );
    } catch (error) {
      if (!(error instanceof TemplateRenderError)) throw error;
      if (error.code !== 'template-limit-exceeded') return;
      const detail = `on a sample invoice: ${error.message}`;
      throw new ValidationError(`The template exceeds a render limit ${detail}`, [{ pointer: '/content', detail }], 'template-limit-exceeded');
    }
  }
}
