/** The introduction of the OpenAPI document: the decisions the interface left open. */
export const API_DESCRIPTION = `
Headless subscription billing: invoices, prices, subscriptions, payments, payment providers,
templates and signed webhook notifications.

**Authentication.** Every operation needs \`Authorization: Bearer <JWT>\` and the header
\`x-environment: <uuid>\`. The token's \`environments\` claim (a list of uuids) must include that
environment (else 403); a missing or invalid header is a 400; a missing, expired or wrongly signed
token is a 401, and so is one whose payload is not a JSON object or whose \`sub\` is not 1–255
printable characters or begins with \`system:\` (reserved for the service's own actors). Everything you read and write is scoped to the environment: an id from another
environment answers 404.

**Errors** are RFC 9457 problem details (\`application/problem+json\`). \`type\` is a URI reference
\`/problems/<code>\` that this service serves (GET /problems lists the catalogue). Validation
failures are 422 with \`errors: [{pointer, detail}]\` where \`pointer\` is a JSON Pointer into the
body (query parameters as \`/query/<name>\`, headers as \`/headers/<name>\`).

**Consistency.** A write answers after the read models reflect it, so an immediately following GET
returns the new state. Writes that carry \`If-Match\` with a stale ETag answer 409; so does a weak
one (\`W/"3"\`): If-Match compares strongly.

**Lists** are keyset paged: \`{items, nextPageToken}\` with \`limit\` and an opaque \`pageToken\` (a token
the service did not issue, or issued for other filters, is a 422 at \`/query/pageToken\`). A page also
stops once its items reach 4 MiB of JSON (GET /events and history: LOG_PAGE_MAX_BYTES, default 4 MiB);
its first item always comes, and nextPageToken continues after the last one shown. Unknown query
parameters are a 422 at \`/query/<name>\` on every GET, single-resource GETs included. Date-times are
RFC 3339 with a zone, checked field by field (2026-02-30 and T24:00:00 are a 422).

**Idempotency.** Every POST and PUT accepts \`Idempotency-Key\` (1–255 printable ASCII characters),
scoped to the environment and the token's \`sub\`, kept 24 hours (IDEMPOTENCY_RETENTION_HOURS). The
key commits in the same transaction as the write's events. The same request again answers the stored
response byte for byte with \`Idempotent-Replayed: true\` (client errors included; 5xx and 409
version-conflict release the key); a different request with the key is a 422
idempotency-key-reused; a retry while the first still runs is a 409 idempotency-key-in-flight.

**Payments.** Providers \`sandbox\` (a test gateway: tokens tok_success, tok_decline, tok_insufficient_funds,
tok_gateway_error, tok_timeout) and \`manual\`; credentials are encrypted at rest and never returned (only a
hint: at most 4 characters, never more than a quarter of the secret). A payment is recorded before its gateway call (the payment id is the gateway's idempotency
reference); an unknown outcome stays pending until a worker looks it up; a succeeded payment settles its invoice
and a refund unsettles it. Subscriptions with a paymentMethod have their invoices collected, soft declines retried
on the environment's schedule (PUT /paymentsettings).

**Test clocks.** With TEST_CLOCKS=true (the default outside production; otherwise the /test-clock
routes are 404) each environment has its own clock: \`GET /test-clock\` answers its \`now\`, and
\`POST /test-clock/advance\` \`{"to": <date-time>}\` moves it forward (backwards is a 422, at most 5
years per call) and answers 200 only after everything due up to the new time (renewals, billing,
cancellations) was processed for the environment. An advanced clock is frozen until the next advance.
Every request runs in its environment's time: event times, \`createdAt\`, default dates and
Idempotency-Key retention all follow it.
`.trim();
