import { Module } from '@nestjs/common';
import { CreateTemplateGroupHandler } from './create-template-group/create-template-group.handler';
import { InvoiceDocumentReactor } from './documents/invoice-document.reactor';
import { InvoiceDocuments } from './documents/invoice-documents';
import { RecordedInvoiceDocumentHandler } from './documents/recorded-invoice-document.query';
import { InvoiceDocumentsController } from './http/invoice-documents.controller';
import { TemplatesController } from './http/templates.controller';
import { InvoiceEmailHandler } from './invoice-email/invoice-email.query';
import { TemplatesReadModel } from './read-model/templates.read-model';
import { RenderPool } from './rendering/render-pool';
import { SetDefaultTemplateGroupHandler } from './set-default-group/set-default-group.handler';
import { UpdateTemplateContentHandler } from './update-template-content/update-template-content.handler';
import { UpdateTemplateGroupHandler } from './update-template-group/update-template-group.handler';
import { TemplateGroupExistsHandler } from './template-group-exists/template-group-exists.handler';

/** The HTTP surface, handlers, renderer and reactor of the templates context (its definition is templatesContext). */
@Module({
  controllers: [TemplatesController, InvoiceDocumentsController],
  providers: [
    TemplatesReadModel,
    RenderPool,
    InvoiceDocuments,
    InvoiceDocumentReactor,
    RecordedInvoiceDocumentHandler,
    InvoiceEmailHandler,
    CreateTemplateGroupHandler,
    UpdateTemplateGroupHandler,
    UpdateTemplateContentHandler,
    SetDefaultTemplateGroupHandler,
    TemplateGroupExistsHandler,
  ],
})
export class TemplatesModule {}
