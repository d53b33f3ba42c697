import fc from 'fast-check';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideRecordEmailOutcome, EMAIL_RETRY, emailDeliveryEvolver, isPermanentSmtpFailure, maskAddress, nextEmailAttemptAt } from './email-delivery';

const T0 = '2026-02-01T00:00:00.000Z';
const meta = metadataAt(T0);
const spec = deciderSpec(emailDeliveryEvolver);
const outcome = {
  deliveryId: '7d2e9c41-5a6b-5c7d-8e9f-0a1b2c3d4e5f',
  kind: 'invoice' as const,
  invoiceId: '4a1c6f0e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
  recipient: 'a***@example.org',
  messageId: '<7d2e9c41-5a6b-5c7d-8e9f-0a1b2c3d4e5f@example.com>',
  attempts: 2,
  lastReply: '250 OK',
};

describe('an e-mail delivery', () => {
  it('given a queued delivery, when sent: EmailSent; when given up: EmailFailed', () => {
    spec
      .given([])
      .when((state) => decideRecordEmailOutcome({ sent: true, ...outcome }, state, meta))
      .then([{ type: 'EmailSent', schemaVersion: 1, data: { ...outcome, sentAt: T0 } }]);
    spec
      .given([])
      .when((state) => decideRecordEmailOutcome({ sent: false, ...outcome, lastReply: '550 no such user' }, state, meta))
      .then([{ type: 'EmailFailed', schemaVersion: 1, data: { ...outcome, lastReply: '550 no such user', failedAt: T0 } }]);
  });

  it('given an ended delivery, when recorded again (a second dispatcher): nothing', () => {
    spec
      .given([{ type: 'EmailSent', schemaVersion: 1, data: { ...outcome, sentAt: T0 } }])
      .when((state) => decideRecordEmailOutcome({ sent: false, ...outcome }, state, meta))
      .then([]);
  });

  it('masks an address to its first character and domain', () => {
    expect(maskAddress('anna.virtanen@example.org')).toBe('a***@example.org');
    expect(maskAddress('nonsense')).toBe('***');
  });

  it('treats 5xx as permanent, 4xx and no reply as transient', () => {
    expect([550, 554, 500].map(isPermanentSmtpFailure)).toEqual([true, true, true]);
    expect([421, 451, 452, undefined].map(isPermanentSmtpFailure)).toEqual([false, false, false, false]);
  });

  it('retries after 60 s, doubling to at most 2 h, never past 72 hours after queueing', () => {
    const queued = new Date(T0);
    expect(nextEmailAttemptAt(queued, 1, queued)).toEqual(new Date(queued.getTime() + 60_000));
    expect(nextEmailAttemptAt(queued, 3, queued)).toEqual(new Date(queued.getTime() + 240_000));
    expect(nextEmailAttemptAt(queued, 40, queued)).toEqual(new Date(queued.getTime() + EMAIL_RETRY.maxSeconds * 1000));
    const late = new Date(queued.getTime() + (EMAIL_RETRY.windowSeconds - 30) * 1000);
    expect(nextEmailAttemptAt(queued, 1, late)).toBeNull();
    expect(() => nextEmailAttemptAt(queued, 0, queued)).toThrow(RangeError);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: EMAIL_RETRY.windowSeconds }), (failures, elapsed) => {
        const now = new Date(queued.getTime() + elapsed * 1000);
        const next = nextEmailAttemptAt(queued, failures, now);
        if (next === null) return true;
        const delay = next.getTime() - now.getTime();
        return (
          delay >= EMAIL_RETRY.baseSeconds * 1000 &&
          delay <= EMAIL_RETRY.maxSeconds * 1000 &&
          next.getTime() <= queued.getTime() + EMAIL_RETRY.windowSeconds * 1000
        );
      }),
    );
  });
});
