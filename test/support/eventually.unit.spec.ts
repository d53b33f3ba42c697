import { eventually } from './eventually';

describe('eventually', () => {
  it('issue 20 #22: waits for the asserted state (succeeded), not merely for the record to exist (pending)', async () => {
    const reads = [[], [{ status: 'pending' }], [{ status: 'pending' }], [{ status: 'succeeded' }]];
    let read = 0;
    const payments = async () => reads[Math.min(read++, reads.length - 1)];
    const settled = await eventually(payments, (found) => found.some((payment) => payment.status !== 'pending'));
    expect(settled).toEqual([{ status: 'succeeded' }]);
    expect(read).toBe(4);
  });

  it('fails at its deadline naming what it waited for and the last value read', async () => {
    await expect(
      eventually(
        async () => ({ status: 'pending' }),
        (payment) => payment.status === 'succeeded',
        { timeoutMs: 0, what: 'the payment to settle' },
      ),
    ).rejects.toThrow('timed out after 0 ms waiting for the payment to settle; last read: {"status":"pending"}');
  });
});
