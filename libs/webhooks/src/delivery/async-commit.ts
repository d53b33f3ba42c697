/**
 * A FROM item that turns off the wait for the WAL flush at the commit of the
 * statement it is in (its own transaction: `set_config(…, true)` lasts until
 * it ends). For the dispatcher's bookkeeping, whose loss in a crash of
 * Postgres costs at most a duplicate send, never a lost one: a lost claim
 * leaves the row unleased and due, a lost record leaves it leased and due
 * again when the lease expires. Waiting for the flush cost 3–4 ms per
 * statement on the bench machine and queued the API's own commits behind
 * these flushes (docs/BENCHMARKS.md, issue 21).
 */
export const ASYNC_COMMIT = `(select set_config('synchronous_commit', 'off', true)) as async_commit`;
