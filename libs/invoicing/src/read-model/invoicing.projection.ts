import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver, foldEvents, formatScaledDecimal } from '@billing/shared-kernel';
import { jsonRows, jsonRowsFrom, Projection, queryRows, RecordedEvent, StoredEvent } from '@billing/event-store';
import {
  Invoice,
  InvoiceEvent,
  InvoiceState,
  ResolvedTax,
  TAX_RATE_SCALE,
  TaxCodeEvent,
  TaxCodeState,
  TaxRegister,
  invoiceEvolver,
  resolveTax,
  taxCodeEvolver,
  taxCodesOf,
} from '../domain';
import { INVOICE_STREAM, TAX_CODE_STREAM } from '../streams';
import { InvoiceView, renderInvoiceView } from './invoice-view';
import { toTaxCodeView } from './tax-code-view';

export const INVOICING_PROJECTION = 'invoicing.read-model';

/**
 * Keeps `invoices` and `tax_codes` equal to a fold of their streams, set-wise:
 * each row stores the aggregate's state (`state`) and the stream version it
 * is at, so a batch loads the rows of every stream it touches in one query,
 * evolves them in memory in log order, and writes every changed row of a
 * table in one statement, whatever the number of events.
 *
 * Draft invoices are shown at the current rates of their tax codes
 * (`withCurrentTax`) as of the events applied: a tax code's new rate or
 * taxability re-renders every draft of the environment naming it (found in
 * one query, their version unchanged), and every draft a batch touches is
 * rendered with the register as it stands at the end of the batch. Since a
 * batch commits as a whole, the rows equal those of applying its events one
 * by one, and a replay from zero gives the same rows.
 *
 * Rows written before the state was stored (`state` null) are folded from
 * their streams, up to the version they show, the first time a batch needs
 * them (one query for all of them). A change to the shape of Invoice or
 * TaxCode must come with a migration of the stored state, or a rebuild.
 */
export const invoicingProjection: Projection = {
  name: INVOICING_PROJECTION,
  tables: [{ name: 'invoices', jsonText: ['state'] }, 'tax_codes'],
  streamTypes: [INVOICE_STREAM, TAX_CODE_STREAM],

  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const taxCodes = await evolveTaxCodes(
      events.filter((event) => event.streamType === TAX_CODE_STREAM),
      tx,
    );
    const invoices = await evolveInvoices(
      events.filter((event) => event.streamType === INVOICE_STREAM),
      repricedCodes(taxCodes),
      tx,
    );
    const registers = await registersFor(invoices, taxCodes, tx);
    await writeInvoices(invoices, registers, tx);
    await writeTaxCodes(taxCodes, tx);
  },

  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate invoices, tax_codes`);
  },

  /**
   * An invoice's row is a function of its stream, but a draft naming tax codes: it shows them at their current
   * rates, the register as of the log, which only this projection knows. So every other invoice a command
   * writes (a draft without codes, anything booked) has its row written by the command, and the command does
   * not wait for this projection, which finds the row at its events' version and leaves it as it is.
   */
  writeAhead: {
    streamType: INVOICE_STREAM,
    row(stream, state, version) {
      const invoice = state as InvoiceState;
      if (invoice.status === 'none' || (invoice.status === 'draft' && invoice.type === 'invoice' && taxCodesOf(invoice).length > 0)) return null;
      return invoiceRow(stream.environmentId, stream.streamId, version, invoice, renderInvoiceView(invoice, undefined));
    },
    write: (rows, manager) => upsertInvoices(rows as readonly InvoiceRowToWrite[], 'ahead', manager),
  },
};

/** One aggregate's row while a batch is applied. */
interface Row<State> {
  readonly environmentId: string;
  readonly streamId: string;
  /** As loaded: what the batch started from. */
  readonly before: State;
  state: State;
  /** The stream version `state` is at (0: no event yet). */
  version: number;
  /** To be written: an event of the batch changed it, or (drafts) a tax code it names changed. */
  changed: boolean;
}

type Rows<State> = Map<string, Row<State>>;

const keyOf = (environmentId: string, id: string) => `${environmentId}/${id}`;

/**
 * Folds events onto their rows (`foldEvents`, each row's events in log
 * order); an event the row already reflects is skipped.
 */
function fold<State, Event extends DomainEvent>(
  rows: Rows<State>,
  key: (event: RecordedEvent) => string,
  events: readonly RecordedEvent[],
  evolver: Evolver<State, Event>,
) {
  const fresh = new Map<Row<State>, Event[]>();
  for (const event of events) {
    const row = rows.get(key(event));
    if (!row || event.streamVersion <= row.version) continue;
    row.version = event.streamVersion;
    const rowEvents = fresh.get(row) ?? fresh.set(row, []).get(row)!;
    rowEvents.push({ type: event.type, schemaVersion: event.schemaVersion, data: event.data } as Event);
  }
  for (const [row, rowEvents] of fresh) {
    row.state = foldEvents(evolver, rowEvents, row.state);
    row.changed = true;
  }
}

// ---------------------------------------------------------------- tax codes

/** Tax-code rows are keyed by (environment, code): both events carry the code. */
function taxCodeKey(event: RecordedEvent): string {
  return keyOf(event.environmentId, (event.data as { code: string }).code);
}

async function evolveTaxCodes(events: readonly RecordedEvent[], tx: EntityManager): Promise<Rows<TaxCodeState>> {
  const rows: Rows<TaxCodeState> = new Map();
  if (events.length === 0) return rows;
  const touched = new Map(events.map((event) => [taxCodeKey(event), event]));
  const keys = [...touched.values()];
  const stored = await queryRows<{ environment_id: string; code: string; version: number; state: TaxCodeState }>(
    tx,
    `select t.environment_id, t.code, t.version, t.state
       from tax_codes t join unnest($1::uuid[], $2::text[]) as k(environment_id, code)
         on t.environment_id = k.environment_id and t.code = k.code`,
    [keys.map((e) => e.environmentId), keys.map((e) => (e.data as { code: string }).code)],
  );
  const found = new Map(stored.map((row) => [keyOf(row.environment_id, row.code), row]));
  for (const [key, event] of touched) {
    const row = found.get(key);
    const state = row?.state ?? taxCodeEvolver.initialState();
    rows.set(key, { environmentId: event.environmentId, streamId: event.streamId, before: state, state, version: row?.version ?? 0, changed: false });
  }
  fold<TaxCodeState, TaxCodeEvent>(rows, taxCodeKey, events, taxCodeEvolver);
  return rows;
}

/** The codes (environment/code) whose rate or taxability the batch changed: the drafts naming them are re-rendered. */
function repricedCodes(taxCodes: Rows<TaxCodeState>): { environmentId: string; code: string }[] {
  return [...taxCodes.values()].flatMap(({ environmentId, before, state }) =>
    before.status === 'active' && state.status === 'active' && (before.rateBasisPoints !== state.rateBasisPoints || before.taxable !== state.taxable)
      ? [{ environmentId, code: state.code }]
      : [],
  );
}

async function writeTaxCodes(taxCodes: Rows<TaxCodeState>, tx: EntityManager): Promise<void> {
  const rows = [...taxCodes.values()].flatMap((row) => (row.changed && row.state.status === 'active' ? [{ ...row, taxCode: row.state }] : []));
  if (rows.length === 0) return;
  await tx.query(
    `insert into tax_codes (environment_id, code, stream_id, rate, taxable, version, view, state)
     select * from ${jsonRowsFrom(1, 'environment_id uuid, code text, stream_id uuid, rate numeric, taxable boolean, version int, view jsonb, state jsonb')}
     on conflict (environment_id, code) do update set
       stream_id = excluded.stream_id, rate = excluded.rate, taxable = excluded.taxable,
       version = excluded.version, view = excluded.view, state = excluded.state`,
    [
      jsonRows(
        rows.map((row) => ({
          environment_id: row.environmentId,
          code: row.taxCode.code,
          stream_id: row.streamId,
          rate: formatScaledDecimal(BigInt(row.taxCode.rateBasisPoints), TAX_RATE_SCALE),
          taxable: row.taxCode.taxable,
          version: row.version,
          view: toTaxCodeView(row.taxCode),
          state: row.taxCode,
        })),
      ),
    ],
  );
}

// ---------------------------------------------------------------- invoices

function invoiceKey(event: RecordedEvent): string {
  return keyOf(event.environmentId, event.streamId);
}

interface InvoiceRow {
  environment_id: string;
  id: string;
  version: number;
  /** The state as JSON text (`invoices.state` is text: see migration 1764600930000); null on rows written before the state was stored. */
  state: string | null;
}

/**
 * The invoice rows the batch writes: those its events touch, and the drafts
 * naming a repriced code (re-rendered, their version unchanged).
 */
async function evolveInvoices(
  events: readonly RecordedEvent[],
  repriced: readonly { environmentId: string; code: string }[],
  tx: EntityManager,
): Promise<Rows<InvoiceState>> {
  // Each stream's last event in the batch (log order): the version its row must reach.
  const touched = new Map(events.map((event) => [invoiceKey(event), event]));
  const stored: InvoiceRow[] = [];
  if (touched.size > 0) {
    const lastEvents = [...touched.values()];
    // Rows already at the batch's version (a command wrote them ahead) are left as they are: their state is not even
    // read, nor their row rendered and sent again. The others come with their state, which the batch evolves.
    const lookedUp = await queryRows<InvoiceRow>(
      tx,
      `select i.environment_id, i.id, i.version, case when i.version < k.version then i.state end as state
         from invoices i join unnest($1::uuid[], $2::uuid[], $3::int[]) as k(environment_id, id, version)
           on i.environment_id = k.environment_id and i.id = k.id`,
      [lastEvents.map((e) => e.environmentId), lastEvents.map((e) => e.streamId), lastEvents.map((e) => e.streamVersion)],
    );
    for (const row of lookedUp) {
      const key = keyOf(row.environment_id, row.id);
      if (row.version >= touched.get(key)!.streamVersion) touched.delete(key);
      else stored.push(row);
    }
  }
  if (repriced.length > 0) {
    stored.push(
      ...(await queryRows<InvoiceRow>(
        tx,
        `select i.environment_id, i.id, i.version, i.state
           from invoices i
          where i.environment_id = any($1::uuid[]) and i.status = 'draft' and i.type = 'invoice'
            and exists (select 1 from unnest($1::uuid[], $2::text[]) as c(environment_id, code)
                         where c.environment_id = i.environment_id
                           and i.view->'items' @> jsonb_build_array(jsonb_build_object('tax', jsonb_build_object('taxCode', c.code))))`,
        [repriced.map((c) => c.environmentId), repriced.map((c) => c.code)],
      )),
    );
  }
  const legacy = await foldLegacyRows(
    stored.filter((row) => row.state === null),
    tx,
  );

  const rows: Rows<InvoiceState> = new Map();
  for (const row of stored) {
    const key = keyOf(row.environment_id, row.id);
    if (rows.has(key)) continue;
    const state = (row.state === null ? null : (JSON.parse(row.state) as InvoiceState)) ?? legacy.get(key) ?? invoiceEvolver.initialState();
    // A draft found through a repriced code is written even when none of its own events is in the batch.
    rows.set(key, { environmentId: row.environment_id, streamId: row.id, before: state, state, version: row.version, changed: !touched.has(key) });
  }
  for (const event of touched.values()) {
    const key = invoiceKey(event);
    if (!rows.has(key)) {
      const state = invoiceEvolver.initialState();
      rows.set(key, { environmentId: event.environmentId, streamId: event.streamId, before: state, state, version: 0, changed: false });
    }
  }
  fold<InvoiceState, InvoiceEvent>(rows, invoiceKey, events, invoiceEvolver);
  return rows;
}

/**
 * The state of rows written before the state was stored, folded from their
 * streams up to the version each row shows: one query for all of them. Read
 * straight from the log like EventStore.readStream (the invoice stream has
 * no upcaster); only an upgraded database ever takes this path, once per row.
 */
async function foldLegacyRows(rows: readonly InvoiceRow[], tx: EntityManager): Promise<Map<string, InvoiceState>> {
  const states = new Map<string, InvoiceState>();
  if (rows.length === 0) return states;
  const events = await queryRows<{ environment_id: string; stream_id: string; type: string; schema_version: number; data: unknown }>(
    tx,
    `select e.environment_id, e.stream_id, e.event_type as type, e.schema_version, e.data
       from events e join unnest($1::uuid[], $2::uuid[], $3::int[]) as r(environment_id, stream_id, version)
         on e.environment_id = r.environment_id and e.stream_type = $4 and e.stream_id = r.stream_id and e.stream_version <= r.version
      order by e.environment_id, e.stream_id, e.stream_version`,
    [rows.map((row) => row.environment_id), rows.map((row) => row.id), rows.map((row) => row.version), INVOICE_STREAM],
  );
  const streams = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const key = keyOf(event.environment_id, event.stream_id);
    const stream = streams.get(key) ?? streams.set(key, []).get(key)!;
    stream.push({ type: event.type, schemaVersion: event.schema_version, data: event.data });
  }
  for (const [key, stream] of streams) states.set(key, foldEvents(invoiceEvolver, stream as InvoiceEvent[]));
  return states;
}

/** Each environment's register for the codes of the draft invoices to be written: the batch's own tax codes, the rest from `tax_codes`. */
async function registersFor(invoices: Rows<InvoiceState>, taxCodes: Rows<TaxCodeState>, tx: EntityManager): Promise<Map<string, Map<string, ResolvedTax>>> {
  const registers = new Map<string, Map<string, ResolvedTax>>();
  const registerOf = (environmentId: string) => registers.get(environmentId) ?? registers.set(environmentId, new Map()).get(environmentId)!;
  const missing: { environmentId: string; code: string }[] = [];
  for (const { environmentId, state, changed } of invoices.values()) {
    if (!changed || state.status !== 'draft' || state.type !== 'invoice') continue;
    for (const code of taxCodesOf(state)) {
      const inBatch = taxCodes.get(keyOf(environmentId, code))?.state;
      if (inBatch?.status === 'active') registerOf(environmentId).set(code, resolveTax(inBatch));
      else missing.push({ environmentId, code });
    }
  }
  if (missing.length > 0) {
    const rows = await queryRows<{ environment_id: string; state: TaxCodeState }>(
      tx,
      `select t.environment_id, t.state
         from tax_codes t join (select distinct * from unnest($1::uuid[], $2::text[]) as k(environment_id, code)) k
           on t.environment_id = k.environment_id and t.code = k.code`,
      [missing.map((m) => m.environmentId), missing.map((m) => m.code)],
    );
    for (const row of rows) if (row.state.status === 'active') registerOf(row.environment_id).set(row.state.code, resolveTax(row.state));
  }
  return registers;
}

async function writeInvoices(invoices: Rows<InvoiceState>, registers: Map<string, TaxRegister>, tx: EntityManager): Promise<void> {
  const rows = [...invoices.values()].flatMap((row) =>
    row.changed && row.state.status !== 'none'
      ? [invoiceRow(row.environmentId, row.streamId, row.version, row.state, renderInvoiceView(row.state, registers.get(row.environmentId)))]
      : [],
  );
  if (rows.length > 0) await upsertInvoices(rows, 'projected', tx);
}

/** An `invoices` row, as `jsonRows` sends it. */
interface InvoiceRowToWrite {
  readonly environment_id: string;
  readonly id: string;
  readonly status: string;
  readonly type: string;
  readonly settlement_status: string;
  readonly customer_id: string | null;
  readonly handle: string | null;
  readonly created_at: string;
  readonly version: number;
  readonly view: InvoiceView;
  /** JSON text: Postgres stores it as it is, without parsing it (`jsonRows` sends it as a string). */
  readonly state: string;
  readonly hosted_link_version: number;
  /** The customer record it is made out to (its state's customerId). */
  readonly customer_record_id: string | null;
}

function invoiceRow(environmentId: string, id: string, version: number, invoice: Invoice, view: InvoiceView): InvoiceRowToWrite {
  return {
    environment_id: environmentId,
    id,
    status: view.status,
    type: view.type,
    settlement_status: view.settlementStatus,
    customer_id: view.customer.id,
    handle: view.handle,
    created_at: view.createdAt,
    version,
    view,
    state: JSON.stringify(invoice),
    hosted_link_version: invoice.hostedLinkVersion ?? 0,
    customer_record_id: invoice.customerId ?? null,
  };
}

/**
 * Writes invoice rows. Never over a later version: a command may have written its invoice's row ahead of this
 * projection (`writeAhead`). A row written ahead never replaces one at its own version either: the projection's
 * row at a version is the one that counts (a draft repriced at an unchanged version).
 */
async function upsertInvoices(rows: readonly InvoiceRowToWrite[], by: 'projected' | 'ahead', tx: EntityManager): Promise<void> {
  await tx.query(
    `insert into invoices (environment_id, id, status, type, settlement_status, customer_id, handle, created_at, version, view, state,
                           hosted_link_version, customer_record_id)
     select * from ${jsonRowsFrom(
       1,
       'environment_id uuid, id uuid, status text, type text, settlement_status text, customer_id text, handle text, created_at timestamptz, version int, view jsonb, state text, hosted_link_version int, customer_record_id uuid',
     )}
     on conflict (environment_id, id) do update set
       status = excluded.status, type = excluded.type, settlement_status = excluded.settlement_status,
       customer_id = excluded.customer_id, handle = excluded.handle, created_at = excluded.created_at,
       version = excluded.version, view = excluded.view, state = excluded.state,
       hosted_link_version = excluded.hosted_link_version, customer_record_id = excluded.customer_record_id
     where invoices.version ${by === 'ahead' ? '<' : '<='} excluded.version`,
    [jsonRows(rows)],
  );
}
