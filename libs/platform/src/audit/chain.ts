import { createHash } from 'node:crypto';

/** The previous hash of an environment's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * An event's columns as the verifier reads them: `data` and `metadata` as
 * Postgres renders the stored jsonb (`data::text`), `occurredAtMicros` the
 * instant in microseconds since the Unix epoch.
 */
export interface ChainedEventColumns {
  readonly globalPosition: string;
  readonly eventId: string;
  readonly environmentId: string;
  readonly streamType: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly eventType: string;
  readonly schemaVersion: number;
  readonly dataText: string;
  readonly metadataText: string;
  readonly occurredAtMicros: string;
}

/**
 * The canonical serialisation of an event (README, "Audit"): the text of the
 * jsonb array
 * `[global_position, event_id, environment_id, stream_type, stream_id,
 * stream_version, event_type, schema_version, data, metadata, occurred_at
 * in microseconds]` as Postgres renders jsonb: elements separated by `, `,
 * numbers as digits, strings in double quotes with `"`, `\` and control
 * characters escaped as in JSON, and `data`/`metadata` exactly as their own
 * jsonb text (keys ordered by length then bytes, `": "` and `", "`).
 * Rebuilt here from the columns, independently of the database's
 * `event_canonical` function that the chain trigger uses.
 */
export function canonicalEvent(event: ChainedEventColumns): string {
  const parts = [
    digits(event.globalPosition),
    JSON.stringify(event.eventId),
    JSON.stringify(event.environmentId),
    JSON.stringify(event.streamType),
    JSON.stringify(event.streamId),
    String(event.streamVersion),
    JSON.stringify(event.eventType),
    String(event.schemaVersion),
    event.dataText,
    event.metadataText,
    digits(event.occurredAtMicros),
  ];
  return `[${parts.join(', ')}]`;
}

/** sha256 over the previous hash (64 hex digits) followed by the canonical serialisation, UTF-8; lower-case hex. */
export function chainHash(previousHash: string, canonical: string): string {
  return createHash('sha256').update(previousHash, 'utf8').update(canonical, 'utf8').digest('hex');
}

function digits(value: string): string {
  if (!/^-?\d+$/.test(value)) throw new Error(`not an integer: ${value}`);
  return value;
}

/**
 * The byte string a signed head signs (UTF-8, lines joined by `\n`, no
 * trailing newline): `billing-audit-head/v1`, the environment id, the
 * position, the hash and `at` (ISO 8601, milliseconds, `Z`).
 */
export function headMessage(head: { readonly environmentId: string; readonly position: number; readonly hash: string; readonly at: string }): Buffer {
  return Buffer.from(['billing-audit-head/v1', head.environmentId, String(head.position), head.hash, head.at].join('\n'), 'utf8');
}
