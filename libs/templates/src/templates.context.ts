import { BoundedContext, eventTypesOf, NotificationDefinition, StreamDefinition } from '@billing/platform';
import {
  DEFAULT_TEMPLATE_GROUP_STREAM_TYPE,
  DefaultTemplateGroupEvent,
  defaultTemplateGroupEvolver,
  DefaultTemplateGroupState,
  INVOICE_DOCUMENT_STREAM_TYPE,
  InvoiceDocumentEvent,
  invoiceDocumentEvolver,
  InvoiceDocumentState,
  TEMPLATE_GROUP_STREAM_TYPE,
  TemplateGroupEvent,
  templateGroupEvolver,
  TemplateGroupState,
} from './domain';
import { InvoiceDocumentReactor } from './documents/invoice-document.reactor';
import { templatesMigrations } from './migrations';
import { templatesProjection } from './read-model/templates.projection';
import { TEMPLATES_PROBLEMS } from './templates.problems';
import { TemplatesModule } from './templates.module';
import { defaultTemplateGroupStream } from './streams';
import { invoiceDocumentViewOf, templateGroupViewOf, TemplateGroupView, withDefault } from './views';

/** Every event type of a stream with the schema version it is written in (a type missing here does not compile). */
const GROUP_EVENTS: Record<TemplateGroupEvent['type'], number> = { TemplateGroupCreated: 1, TemplateGroupUpdated: 1, TemplateContentUpdated: 1 };
const DEFAULT_EVENTS: Record<DefaultTemplateGroupEvent['type'], number> = { DefaultTemplateGroupSet: 1 };
const DOCUMENT_EVENTS: Record<InvoiceDocumentEvent['type'], number> = { InvoiceDocumentRendered: 1 };

const groupStream: StreamDefinition<TemplateGroupState, TemplateGroupEvent> = {
  type: TEMPLATE_GROUP_STREAM_TYPE,
  idScheme: 'the template group id: a random uuid the service chooses on POST /templates',
  events: eventTypesOf(GROUP_EVENTS),
  view: { evolver: templateGroupEvolver, toView: templateGroupViewOf },
  resource: {
    type: 'template_group',
    path: 'templates',
    alongside: {
      streamType: DEFAULT_TEMPLATE_GROUP_STREAM_TYPE,
      streamIdOf: (environmentId: string) => defaultTemplateGroupStream(environmentId).streamId,
      evolver: defaultTemplateGroupEvolver,
      apply: (view: TemplateGroupView, state: DefaultTemplateGroupState) => withDefault(view, state.templateGroupId),
    },
  },
};
const defaultStream: StreamDefinition = {
  type: DEFAULT_TEMPLATE_GROUP_STREAM_TYPE,
  idScheme: "uuid v5 of the environment id: the environment's default template group",
  events: eventTypesOf(DEFAULT_EVENTS),
  resource: { type: 'default_template_group' },
};
const documentStream: StreamDefinition<InvoiceDocumentState, InvoiceDocumentEvent> = {
  type: INVOICE_DOCUMENT_STREAM_TYPE,
  idScheme: "the invoice id: a booked invoice's recorded document (one event)",
  events: eventTypesOf(DOCUMENT_EVENTS),
  view: { evolver: invoiceDocumentEvolver, toView: invoiceDocumentViewOf },
  resource: { type: 'invoice_document' },
};

const notifications: NotificationDefinition[] = [
  {
    name: 'template_group.created',
    streamType: TEMPLATE_GROUP_STREAM_TYPE,
    eventType: 'TemplateGroupCreated',
    description: 'A template group is created with the built-in templates.',
  },
  {
    name: 'template_group.updated',
    streamType: TEMPLATE_GROUP_STREAM_TYPE,
    eventType: 'TemplateGroupUpdated',
    description: 'A template group is renamed or its locale changed.',
  },
  {
    name: 'template_group.updated',
    streamType: TEMPLATE_GROUP_STREAM_TYPE,
    eventType: 'TemplateContentUpdated',
    description: "One of a group's templates is changed.",
  },
  {
    name: 'invoice.document_rendered',
    streamType: INVOICE_DOCUMENT_STREAM_TYPE,
    eventType: 'InvoiceDocumentRendered',
    description: "A booked invoice's document is rendered and recorded (its sha256, the group and version it used, any fallback to the built-in template).",
  },
];

/**
 * Templates and invoice documents: template groups (Liquid, sandboxed), the
 * environment's default group, and booked invoices' recorded documents (PDF
 * and HTML, rendered once at booking). Reads invoicing's invoice stream, its
 * published language; writes only its own streams and tables.
 */
export const templatesContext: BoundedContext = {
  name: 'templates',
  module: TemplatesModule,
  migrations: templatesMigrations,
  streams: [groupStream, defaultStream, documentStream],
  projections: [templatesProjection],
  reactors: [InvoiceDocumentReactor],
  notifications,
  problems: TEMPLATES_PROBLEMS,
};
