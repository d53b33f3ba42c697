/** Identifies one stream: streams never cross environments. */
export interface StreamRef {
  readonly environmentId: string;
  readonly streamType: string;
  readonly streamId: string;
}

/** A stream's identity as one string (for maps and sets of streams). */
export function streamKey(stream: StreamRef): string {
  return `${stream.environmentId}/${stream.streamType}/${stream.streamId}`;
}

/** Who and what caused an append; stored with every event for auditors. */
export interface EventMetadata {
  /** The token's `sub`, or `system:<component>` for the service's own reactions. */
  readonly actor: string;
  readonly requestId: string | null;
  readonly correlationId: string;
  /** The event (or request) that caused this one; null for a direct API command. */
  readonly causationId: string | null;
}

export interface NewEvent {
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly occurredAt: Date;
}

/** A position in the global log: (transaction id, global position), compared in that order. */
export interface LogPosition {
  readonly transactionId: string;
  readonly globalPosition: string;
}

export interface RecordedEvent extends NewEvent, StreamRef, LogPosition {
  readonly streamVersion: number;
  /**
   * When it was appended, on the real clock (`occurredAt` is its
   * environment's time, which a test clock may put years ahead): what runs in
   * real time because of it (notifications, gateway lookups) counts from here.
   */
  readonly recordedAt: Date;
  readonly metadata: EventMetadata;
}

/** `no_stream`: the stream must not exist yet; a number: its current version must be exactly this. */
export type ExpectedVersion = number | 'no_stream';

export interface StreamAppend {
  readonly stream: StreamRef;
  readonly expectedVersion: ExpectedVersion;
  readonly events: readonly NewEvent[];
}

/** Where one append left one stream in the log, for read-your-writes waits. */
export interface WrittenStream {
  readonly streamType: string;
  readonly position: LogPosition;
}

export interface AppendResult {
  /** Each stream's version after the append, in the order of the appends. */
  readonly nextVersions: readonly number[];
  /** The last event's position per appended stream (none for an append without events). */
  readonly written: readonly WrittenStream[];
}

/**
 * The stored answer of a request made with an Idempotency-Key (a row of `idempotency_keys`), committed with the
 * events the request appended, or alone when it appended none: the two exist together or not at all.
 */
export interface RequestAnswer {
  readonly environmentId: string;
  /** The caller (the token's `sub`): a key is the caller's own. */
  readonly subject: string;
  readonly key: string;
  /** The request's method, path and body, hashed: the same key with another request is refused. */
  readonly fingerprint: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly createdAt: Date;
  /** After this the key counts as absent (and may be taken again). */
  readonly expiresAt: Date;
}

/** An event as stored, before or after upcasting: what an upcaster reads and returns. */
export interface StoredEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
}

/** Brings events written with an older schema version up to the current one, when read. */
export type Upcaster = (event: StoredEvent) => StoredEvent;

export const ZERO_POSITION: LogPosition = { transactionId: '0', globalPosition: '0' };

export function comparePositions(a: LogPosition, b: LogPosition): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  const pos = BigInt(a.globalPosition) - BigInt(b.globalPosition);
  return pos === 0n ? 0 : pos < 0n ? -1 : 1;
}
