import { canonicalEvent, chainHash, GENESIS_HASH, headMessage } from './chain';

/**
 * The documented serialisation against a vector Postgres produced itself:
 * `jsonb_build_array(...)::text` of the same columns, and
 * `encode(sha256(convert_to(repeat('0', 64) || that, 'UTF8')), 'hex')`.
 */
describe('the canonical serialisation and the chain hash', () => {
  const columns = {
    globalPosition: '7',
    eventId: '6f1c2e4a-1b7d-4c1e-9a51-0c2f3d4e5f60',
    environmentId: '0b0c0d0e-0f10-4112-8314-151617181920',
    streamType: 'invoice',
    streamId: '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d',
    streamVersion: 3,
    eventType: 'InvoiceBooked',
    schemaVersion: 1,
    // As `data::text` renders the stored jsonb: keys by length then bytes, the decimal as written.
    dataText: '{"total": 12.50, "number": "INV-000001", "bookedAt": "2026-01-16T00:00:00.000Z"}',
    metadataText: '{"actor": "user-1", "requestId": "r-1", "causationId": null, "correlationId": "c-1"}',
    occurredAtMicros: '1768521600123456',
  };

  it("rebuilds Postgres's jsonb array text byte for byte", () => {
    expect(canonicalEvent(columns)).toBe(
      '[7, "6f1c2e4a-1b7d-4c1e-9a51-0c2f3d4e5f60", "0b0c0d0e-0f10-4112-8314-151617181920", "invoice", "1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d", 3, "InvoiceBooked", 1, ' +
        '{"total": 12.50, "number": "INV-000001", "bookedAt": "2026-01-16T00:00:00.000Z"}, {"actor": "user-1", "requestId": "r-1", "causationId": null, "correlationId": "c-1"}, 1768521600123456]',
    );
  });

  it("hashes to Postgres's sha256 of the genesis hash followed by it", () => {
    expect(chainHash(GENESIS_HASH, canonicalEvent(columns))).toBe('47118c4550fa3a88ba514756b71959d22c31c50d6704c9085f99a84a1db8ecc6');
  });

  it('any changed column changes the hash', () => {
    const original = chainHash(GENESIS_HASH, canonicalEvent(columns));
    const changes: Partial<typeof columns>[] = [
      { globalPosition: '8' },
      { streamVersion: 4 },
      { eventType: 'InvoiceUpdated' },
      { schemaVersion: 2 },
      { dataText: columns.dataText.replace('12.50', '12.5') },
      { metadataText: columns.metadataText.replace('user-1', 'user-2') },
      { occurredAtMicros: '1768521600123457' },
    ];
    for (const change of changes) expect(chainHash(GENESIS_HASH, canonicalEvent({ ...columns, ...change }))).not.toBe(original);
    expect(chainHash('1'.repeat(64), canonicalEvent(columns))).not.toBe(original);
  });

  it('signs five lines joined by a newline, no trailing newline', () => {
    const message = headMessage({ environmentId: columns.environmentId, position: 12, hash: 'ab'.repeat(32), at: '2026-01-16T00:00:00.000Z' });
    expect(message.toString('utf8')).toBe(`billing-audit-head/v1\n${columns.environmentId}\n12\n${'ab'.repeat(32)}\n2026-01-16T00:00:00.000Z`);
  });
});
