import { BoundedContext, eventTypesOf, NotificationDefinition, StreamDefinition } from '@billing/platform';
import {
  EMAIL_DELIVERY_STREAM_TYPE,
  EMAIL_SETTINGS_STREAM_TYPE,
  EmailDeliveryEvent,
  emailDeliveryEvolver,
  EmailDeliveryState,
  EmailSettingsUpdated,
  INVOICE_EMAIL_REQUEST_STREAM_TYPE,
  InvoiceEmailRequested,
} from './domain';
import { EMAIL_PROBLEMS } from './email.problems';
import { EmailModule } from './email.module';
import { emailMigrations } from './migrations';
import { EmailOutboxReactor } from './outbox/email-outbox.reactor';

const SETTINGS_EVENTS: Record<EmailSettingsUpdated['type'], number> = { EmailSettingsUpdated: 1 };
const REQUEST_EVENTS: Record<InvoiceEmailRequested['type'], number> = { InvoiceEmailRequested: 1 };
const DELIVERY_EVENTS: Record<EmailDeliveryEvent['type'], number> = { EmailSent: 1, EmailFailed: 1 };

const deliveryStream: StreamDefinition<EmailDeliveryState, EmailDeliveryEvent> = {
  type: EMAIL_DELIVERY_STREAM_TYPE,
  idScheme: 'the delivery id: uuid v5 of (causing event, recipient); one event, how the delivery ended',
  events: eventTypesOf(DELIVERY_EVENTS),
  // What email.sent and email.failed carry: the outcome, the recipient masked.
  view: { evolver: emailDeliveryEvolver, toView: (state) => state },
  resource: { type: 'email_delivery' },
};

const settingsStream: StreamDefinition = {
  type: EMAIL_SETTINGS_STREAM_TYPE,
  idScheme: "uuid v5 of the environment id: the environment's e-mail settings",
  events: eventTypesOf(SETTINGS_EVENTS),
  resource: { type: 'email_settings' },
};
const requestStream: StreamDefinition = {
  type: INVOICE_EMAIL_REQUEST_STREAM_TYPE,
  idScheme: 'uuid v5 of (environment, invoice): the requests to send an invoice again (POST /invoices/{id}/send)',
  events: eventTypesOf(REQUEST_EVENTS),
  resource: { type: 'invoice_email_request' },
};

const notifications: NotificationDefinition[] = [
  {
    name: 'email.sent',
    streamType: EMAIL_DELIVERY_STREAM_TYPE,
    eventType: 'EmailSent',
    description: 'The SMTP server accepted an e-mail (an invoice, credit note, receipt, payment-failed or trial notice); the recipient is masked.',
  },
  {
    name: 'email.failed',
    streamType: EMAIL_DELIVERY_STREAM_TYPE,
    eventType: 'EmailFailed',
    description: 'An e-mail was given up: a permanent (5xx) SMTP reply, or no acceptance within 72 hours; the recipient is masked.',
  },
];

/**
 * E-mail: the environment's settings, an outbox of deliveries the events of invoicing (through templates'
 * recorded documents), payments and subscriptions queue, and the dispatcher that hands them to SMTP. Reads
 * invoicing's, payments' and subscriptions' streams and templates' published e-mail query; writes only its own
 * streams and table.
 */
export const emailContext: BoundedContext = {
  name: 'email',
  module: EmailModule,
  migrations: emailMigrations,
  streams: [settingsStream, requestStream, deliveryStream],
  projections: [],
  reactors: [EmailOutboxReactor],
  notifications,
  problems: EMAIL_PROBLEMS,
};
