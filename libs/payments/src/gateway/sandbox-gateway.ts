import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EntityManager } from 'typeorm';
import { outsideUnitOfWork, queryRows } from '@billing/event-store';
import { ChargeRequest, GatewayOutcome, GatewayRefundOutcome, LookupOutcome, PaymentGateway, RefundLookupOutcome, RefundRequest } from './payment-gateway';

/** The test tokens the sandbox knows, and what charging them does. */
export const SANDBOX_TOKENS = {
  /** Charged: succeeded, provider reference `sbx_<random>`. */
  success: 'tok_success',
  /** Declined hard, `card_declined`. */
  decline: 'tok_decline',
  /** Declined soft, `insufficient_funds`. */
  insufficientFunds: 'tok_insufficient_funds',
  /** Not reached: unreachable, nothing recorded (charging the reference again is a fresh attempt). */
  gatewayError: 'tok_gateway_error',
  /** Charged (recorded as succeeded), but the answer times out: unknown; lookup then answers succeeded. */
  timeout: 'tok_timeout',
} as const;

export interface SandboxGatewayOptions {
  /** How long every call takes, like a round trip to a remote gateway (default 20 ms). */
  readonly latencyMs?: number;
  /** How long a `tok_timeout` charge waits before answering unknown (default 250 ms). */
  readonly timeoutMs?: number;
}

type Recorded = Extract<GatewayOutcome, { kind: 'succeeded' | 'declined' }>;

interface RecordedRequest {
  readonly amount: number;
  readonly currency: string;
  readonly token: string;
}

/**
 * Provider `sandbox`: in-process, but behaving like a remote gateway. Every
 * call takes a real delay; charges are idempotent per (environment,
 * reference); what a charge does depends on its token (SANDBOX_TOKENS;
 * any other token is declined hard, `invalid_token`). Credentials are not
 * used.
 *
 * Its charges live in its own table (sandbox_gateway_charges), written
 * outside the caller's transaction (as a remote gateway's are): a charge
 * stays made even when the caller rolls back or crashes before recording
 * the outcome, which is the path `unknown` and lookup exist for.
 *
 * What is recorded: succeeded and declined (card) outcomes; a repeated
 * charge answers the recorded one (a charge recorded under `tok_timeout`
 * answers succeeded) and one with a different amount, currency or token
 * throws, as real gateways refuse a reused idempotency key. Not recorded:
 * unreachable (`tok_gateway_error`) and invalid requests (unknown token,
 * amount not positive, currency not three capitals), which reach no card:
 * lookup answers not_found and a later charge is a fresh attempt.
 *
 * Refunds (table sandbox_gateway_refunds), idempotent per refund reference:
 * a refund of a charge it did not make succeed is declined
 * `charge_not_found`, one beyond what is left of the charge
 * `amount_exceeds_charge` (the gateway's own check, besides ours); a refund
 * of a charge made with `tok_timeout` is made but its answer times out
 * (unknown), like that charge's.
 */
export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox';
  private readonly latencyMs: number;
  private readonly timeoutMs: number;

  /** `manager`: the DataSource's manager (not a transaction's). */
  constructor(
    private readonly manager: EntityManager,
    options: SandboxGatewayOptions = {},
  ) {
    this.latencyMs = options.latencyMs ?? 20;
    this.timeoutMs = options.timeoutMs ?? 250;
  }

  charge(request: ChargeRequest): Promise<GatewayOutcome> {
    return outsideUnitOfWork(async () => {
      await sleep(this.latencyMs);
      const earlier = await this.find(request);
      if (earlier) return replay(request, earlier);
      const invalid = invalidRequest(request);
      if (invalid) return invalid;
      if (request.token === SANDBOX_TOKENS.gatewayError) {
        return { kind: 'unreachable', message: 'sandbox: the gateway could not be reached (tok_gateway_error); nothing was charged' };
      }
      const decided = outcomeOf(request.token);
      const recorded = await this.record(request, decided);
      if (!recorded) return replay(request, (await this.find(request))!); // a concurrent charge of this reference recorded first
      if (request.token === SANDBOX_TOKENS.timeout) {
        await sleep(this.timeoutMs);
        return { kind: 'unknown', message: `sandbox: no answer within ${this.timeoutMs} ms (tok_timeout); the charge may have been made: look it up` };
      }
      return decided;
    });
  }

  lookup(request: ChargeRequest): Promise<LookupOutcome> {
    return outsideUnitOfWork(async () => {
      await sleep(this.latencyMs);
      const earlier = await this.find(request);
      return earlier?.outcome ?? { kind: 'not_found', message: `sandbox: no charge with reference ${request.reference}` };
    });
  }

  refund(request: RefundRequest): Promise<GatewayRefundOutcome> {
    return outsideUnitOfWork(async () => {
      await sleep(this.latencyMs);
      const decided = await this.manager.transaction(async (tx) => {
        // One refund of a charge at a time: the check of what is left and the record are one step.
        await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`sandbox-refund:${request.environmentId}:${request.chargeReference}`]);
        const earlier = await this.findRefund(request, tx);
        if (earlier) return { outcome: replayRefund(request, earlier), timesOut: false };
        const charge = await this.find({ environmentId: request.environmentId, reference: request.chargeReference });
        if (!charge || charge.outcome.kind !== 'succeeded') {
          return {
            outcome: { kind: 'declined' as const, code: 'charge_not_found', message: `sandbox: no succeeded charge ${request.chargeReference} to refund` },
            timesOut: false,
          };
        }
        const [{ refunded }] = await tx.query(
          `select coalesce(sum(amount), 0)::bigint as refunded from sandbox_gateway_refunds where environment_id = $1 and charge_reference = $2 and outcome->>'kind' = 'succeeded'`,
          [request.environmentId, request.chargeReference],
        );
        const left = charge.request.amount - Number(refunded);
        const outcome: GatewayRefundOutcome =
          request.amount > left
            ? { kind: 'declined', code: 'amount_exceeds_charge', message: `sandbox: only ${left} of the charge is left to refund` }
            : { kind: 'succeeded', providerReference: `sbx_re_${randomBytes(12).toString('hex')}` };
        await tx.query(
          `insert into sandbox_gateway_refunds (environment_id, reference, charge_reference, amount, outcome) values ($1, $2, $3, $4, $5::jsonb)`,
          [request.environmentId, request.reference, request.chargeReference, request.amount, JSON.stringify(outcome)],
        );
        return { outcome, timesOut: outcome.kind === 'succeeded' && charge.request.token === SANDBOX_TOKENS.timeout };
      });
      if (decided.timesOut) {
        await sleep(this.timeoutMs);
        return {
          kind: 'unknown',
          message: `sandbox: no answer within ${this.timeoutMs} ms (a tok_timeout charge's refund); the refund may have been made: look it up`,
        };
      }
      return decided.outcome;
    });
  }

  lookupRefund(request: RefundRequest): Promise<RefundLookupOutcome> {
    return outsideUnitOfWork(async () => {
      await sleep(this.latencyMs);
      const earlier = await this.findRefund(request, this.manager);
      return earlier?.outcome ?? { kind: 'not_found', message: `sandbox: no refund with reference ${request.reference}` };
    });
  }

  private async findRefund(request: RefundRequest, manager: EntityManager): Promise<RecordedRefund | undefined> {
    const [row] = await queryRows<{ outcome: RecordedRefund['outcome']; charge_reference: string; amount: string }>(
      manager,
      'select outcome, charge_reference, amount from sandbox_gateway_refunds where environment_id = $1 and reference = $2',
      [request.environmentId, request.reference],
    );
    return row && { outcome: row.outcome, chargeReference: row.charge_reference, amount: Number(row.amount) };
  }

  private async find(request: Pick<ChargeRequest, 'environmentId' | 'reference'>): Promise<{ outcome: Recorded; request: RecordedRequest } | undefined> {
    const [row] = await queryRows<{ outcome: Recorded; request: RecordedRequest }>(
      this.manager,
      'select outcome, request from sandbox_gateway_charges where environment_id = $1 and reference = $2',
      [request.environmentId, request.reference],
    );
    return row;
  }

  /** False when the reference was recorded already (by a concurrent charge). */
  private async record(request: ChargeRequest, outcome: Recorded): Promise<boolean> {
    const rows = await queryRows(
      this.manager,
      `insert into sandbox_gateway_charges (environment_id, reference, outcome, request, created_at)
       values ($1, $2, $3::jsonb, $4::jsonb, now())
       on conflict (environment_id, reference) do nothing
       returning reference`,
      [request.environmentId, request.reference, JSON.stringify(outcome), JSON.stringify(requestOf(request))],
    );
    return rows.length === 1;
  }
}

interface RecordedRefund {
  readonly outcome: Extract<GatewayRefundOutcome, { kind: 'succeeded' | 'declined' }>;
  readonly chargeReference: string;
  readonly amount: number;
}

/** The recorded outcome, for the same refund; another refund under the same reference is a caller's bug. */
function replayRefund(request: RefundRequest, earlier: RecordedRefund): GatewayRefundOutcome {
  if (earlier.chargeReference !== request.chargeReference || earlier.amount !== request.amount) {
    throw new Error(`sandbox: refund reference ${request.reference} was used already for another refund (${earlier.amount} of ${earlier.chargeReference})`);
  }
  return earlier.outcome;
}

function outcomeOf(token: string): Recorded {
  switch (token) {
    case SANDBOX_TOKENS.success:
    case SANDBOX_TOKENS.timeout:
      return { kind: 'succeeded', providerReference: `sbx_${randomBytes(12).toString('hex')}` };
    case SANDBOX_TOKENS.decline:
      return { kind: 'declined', code: 'card_declined', message: 'sandbox: the card was declined', soft: false };
    case SANDBOX_TOKENS.insufficientFunds:
      return { kind: 'declined', code: 'insufficient_funds', message: 'sandbox: the card has insufficient funds', soft: true };
    default:
      throw new Error(`sandbox: no outcome for token ${token}`);
  }
}

function invalidRequest(request: ChargeRequest): GatewayOutcome | null {
  const known: readonly string[] = Object.values(SANDBOX_TOKENS);
  if (!known.includes(request.token)) {
    return { kind: 'declined', code: 'invalid_token', message: `sandbox: unknown token (use one of ${known.join(', ')})`, soft: false };
  }
  if (!Number.isFinite(request.amount) || request.amount <= 0) {
    return { kind: 'declined', code: 'invalid_amount', message: 'sandbox: the amount must be a positive number', soft: false };
  }
  if (!/^[A-Z]{3}$/.test(request.currency)) {
    return { kind: 'declined', code: 'invalid_currency', message: 'sandbox: the currency must be an ISO 4217 code in capitals', soft: false };
  }
  return null;
}

function requestOf(request: ChargeRequest): RecordedRequest {
  return { amount: request.amount, currency: request.currency, token: request.token };
}

/** The recorded outcome, for the same request; another request under the same reference is a caller's bug. */
function replay(request: ChargeRequest, earlier: { outcome: Recorded; request: RecordedRequest }): GatewayOutcome {
  const asked = requestOf(request);
  if (asked.amount !== earlier.request.amount || asked.currency !== earlier.request.currency || asked.token !== earlier.request.token) {
    throw new Error(
      `sandbox: reference ${request.reference} was charged already with another request (${describe(earlier.request)}, now ${describe(asked)}): a new charge needs a new reference`,
    );
  }
  return earlier.outcome;
}

function describe(request: RecordedRequest): string {
  return `${request.amount} ${request.currency} ${request.token}`;
}
