import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';
import { DEFAULT_TEMPLATE_GROUP_STREAM_TYPE, INVOICE_DOCUMENT_STREAM_TYPE, TEMPLATE_GROUP_STREAM_TYPE } from './domain';

/** Fixed namespace of the default-group stream ids (a random v4 uuid chosen once; never change it). */
const DEFAULT_GROUP_NAMESPACE = '3c8e5f0a-7b2d-4e19-a6c4-d81f2b9e0c57';

/** One stream per template group; its id is the group id (a random uuid the service chooses on POST /templates). */
export function templateGroupStream(environmentId: string, templateGroupId: string): StreamRef {
  return { environmentId, streamType: TEMPLATE_GROUP_STREAM_TYPE, streamId: templateGroupId };
}

/** One stream per environment: which group is its default. */
export function defaultTemplateGroupStream(environmentId: string): StreamRef {
  return { environmentId, streamType: DEFAULT_TEMPLATE_GROUP_STREAM_TYPE, streamId: uuidV5(environmentId, DEFAULT_GROUP_NAMESPACE) };
}

/** One stream per booked invoice's document; its id is the invoice id. */
export function invoiceDocumentStream(environmentId: string, invoiceId: string): StreamRef {
  return { environmentId, streamType: INVOICE_DOCUMENT_STREAM_TYPE, streamId: invoiceId };
}
