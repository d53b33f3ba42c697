import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { canonicalEvent, chainHash, GENESIS_HASH } from './chain';

/** The last link of an environment's chain (position 0 and 64 zeros before its first event). */
export interface ChainHead {
  readonly environmentId: string;
  readonly position: number;
  readonly hash: string;
}

/**
 * What differs at the first broken link:
 * - `content`: the event's columns no longer hash to the hash chained at its commit (its data, metadata, type… were changed);
 * - `link`: the chain itself was edited (a previous hash that is not the hash before it, or a gap in positions);
 * - `missing-event`: a chained event is no longer in the log;
 * - `unchained`: an event in the log that the chain never saw (written with the chain trigger disabled).
 */
export type Difference = 'content' | 'link' | 'missing-event' | 'unchained';

export type VerifyResult =
  | { readonly status: 'ok'; readonly environmentId: string; readonly eventsChecked: number; readonly head: ChainHead }
  | {
      readonly status: 'mismatch';
      readonly environmentId: string;
      readonly eventsChecked: number;
      readonly event: { readonly id: string; readonly position: number | null; readonly globalPosition: string | null };
      readonly differs: Difference;
      readonly detail: string;
    };

export type VerifyProgress = (checked: number, total: number) => void;

interface ChainRow {
  sequence: string;
  chained_event_id: string;
  previous_hash: string;
  hash: string;
  global_position: string | null;
  event_id: string | null;
  environment_id: string;
  stream_type: string;
  stream_id: string;
  stream_version: number;
  event_type: string;
  schema_version: number;
  data_text: string;
  metadata_text: string;
  occurred_micros: string;
}

/** The raw columns: jsonb as Postgres renders it, the instant in microseconds. The hashing is done here, not in SQL. */
const CHAIN_BATCH = `
  select c.sequence::text, c.event_id as chained_event_id, c.previous_hash, c.hash,
         e.global_position::text, e.event_id, e.environment_id, e.stream_type, e.stream_id, e.stream_version,
         e.event_type, e.schema_version, e.data::text as data_text, e.metadata::text as metadata_text,
         (extract(epoch from e.occurred_at) * 1000000)::bigint::text as occurred_micros
    from event_chain c
    left join events e on e.event_id = c.event_id
   where c.environment_id = $1 and c.sequence > $2
   order by c.sequence
   limit $3`;

const BATCH = 5000;

/**
 * Recomputes an environment's hash chain from the log (README, "Audit"):
 * each event's canonical serialisation is rebuilt in Node from its raw
 * columns and hashed with node:crypto after the previous link's hash, so a
 * changed event, an edited chain, a removed event or one written past the
 * chain trigger is found and named. It does not call the database's own
 * canonical function: a verifier that trusted it would miss a changed one.
 */
@Injectable()
export class ChainVerifier {
  constructor(private readonly dataSource: DataSource) {}

  async head(environmentId: string, manager: EntityManager = this.dataSource.manager): Promise<ChainHead> {
    // The text gets a name of its own: `order by sequence` would sort a column named like it as text ('99' after '381').
    const [row] = await queryRows<{ sequence_text: string; hash: string }>(
      manager,
      `select sequence::text as sequence_text, hash from event_chain where environment_id = $1 order by sequence desc limit 1`,
      [environmentId],
    );
    return { environmentId, position: row ? Number(row.sequence_text) : 0, hash: row?.hash ?? GENESIS_HASH };
  }

  /** Every environment that has events or chain links. */
  async environments(): Promise<string[]> {
    const rows = await queryRows<{ environment_id: string }>(
      this.dataSource.manager,
      `select environment_id from (select distinct environment_id from event_chain union select distinct environment_id from events) as all_environments order by 1`,
    );
    return rows.map((row) => row.environment_id);
  }

  async verify(environmentId: string, progress?: VerifyProgress): Promise<VerifyResult> {
    const [{ total }] = await queryRows<{ total: number }>(
      this.dataSource.manager,
      `select count(*)::int as total from event_chain where environment_id = $1`,
      [environmentId],
    );
    let expectedSequence = 1;
    let previousHash = GENESIS_HASH;
    let checked = 0;
    for (;;) {
      const rows = await queryRows<ChainRow>(this.dataSource.manager, CHAIN_BATCH, [environmentId, expectedSequence - 1, BATCH]);
      for (const row of rows) {
        const position = Number(row.sequence);
        const event = { id: row.chained_event_id, position, globalPosition: row.global_position };
        const broken = (differs: Difference, detail: string): VerifyResult => ({
          status: 'mismatch',
          environmentId,
          eventsChecked: checked,
          event,
          differs,
          detail,
        });
        if (position !== expectedSequence) return broken('link', `position ${position} follows position ${expectedSequence - 1}: the chain has a gap`);
        if (row.previous_hash !== previousHash)
          return broken('link', `its previous hash ${row.previous_hash} is not the hash of position ${position - 1} (${previousHash})`);
        if (row.event_id === null) return broken('missing-event', 'the chain holds this event but the log does not');
        const recomputed = chainHash(
          row.previous_hash,
          canonicalEvent({
            globalPosition: row.global_position!,
            eventId: row.event_id,
            environmentId: row.environment_id,
            streamType: row.stream_type,
            streamId: row.stream_id,
            streamVersion: row.stream_version,
            eventType: row.event_type,
            schemaVersion: row.schema_version,
            dataText: row.data_text,
            metadataText: row.metadata_text,
            occurredAtMicros: row.occurred_micros,
          }),
        );
        if (recomputed !== row.hash) return broken('content', `the event hashes to ${recomputed}, but ${row.hash} was chained when it was committed`);
        previousHash = row.hash;
        expectedSequence += 1;
        checked += 1;
      }
      progress?.(checked, total);
      if (rows.length < BATCH) break;
    }
    const [unchained] = await queryRows<{ event_id: string; global_position: string }>(
      this.dataSource.manager,
      `select e.event_id, e.global_position::text from events e
        where e.environment_id = $1 and not exists (select 1 from event_chain c where c.event_id = e.event_id)
        order by e.global_position limit 1`,
      [environmentId],
    );
    if (unchained) {
      return {
        status: 'mismatch',
        environmentId,
        eventsChecked: checked,
        event: { id: unchained.event_id, position: null, globalPosition: unchained.global_position },
        differs: 'unchained',
        detail: 'the event is in the log but not in the chain: it was written with the chain trigger disabled',
      };
    }
    return { status: 'ok', environmentId, eventsChecked: checked, head: { environmentId, position: expectedSequence - 1, hash: previousHash } };
  }
}
