import { CommandSession } from '@billing/event-store';
import { InvoiceType } from './domain';

/**
 * Takes the next `count` numbers of the environment's counter for the type with one statement on the command's
 * transaction, and answers the last of them. The counter row stays locked until that transaction ends, so numbers
 * are handed out in commit order, and a transaction that rolls back gives its numbers back: gapless as long as the
 * command books every number it took.
 */
export async function takeInvoiceNumbers(session: CommandSession, environmentId: string, type: InvoiceType, count: number): Promise<number> {
  const [row] = await session.query<{ last: string }>(
    `insert into invoice_number_sequences (environment_id, type, last) values ($1, $2, $3)
     on conflict (environment_id, type) do update set last = invoice_number_sequences.last + $3
     returning last::text`,
    [environmentId, type, count],
  );
  return Number(row.last);
}
