import { ProblemType } from '@billing/platform';

/** The problem types this context answers with (served at /problems/<code>). */
export const WEBHOOKS_PROBLEMS: Record<string, ProblemType> = {
  'invalid-url': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The webhook URL is not an absolute URL, is longer than 2048 characters, contains a user name, password or fragment, or names port 0.',
  },
  'insecure-url': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'Webhook URLs must use https (plain http is accepted only for a loopback receiver when WEBHOOK_ALLOW_INSECURE_HTTP is set).',
  },
  'forbidden-address': {
    status: 422,
    title: 'Unprocessable Content',
    description:
      'The webhook URL points to a loopback, private, link-local, multicast or otherwise reserved address (in any notation: 2130706433, 0x7f.1, [::ffff:127.0.0.1], localhost…). Delivery re-checks every address the host resolves to.',
  },
  'unknown-version': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The X-version header names no supported webhook payload version (supported: 2022-03; omit it for the newest).',
  },
  'webhook-not-active': {
    status: 409,
    title: 'Conflict',
    description: 'The webhook subscription is disabled (its receiver answered 410 Gone) or deleted. Subscribe the URL again to resume.',
  },
};
