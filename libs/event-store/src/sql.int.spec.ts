import { DataSource } from 'typeorm';
import { createTestDataSource } from '@billing/testing';
import { jsonRows, jsonRowsFrom, queryRows } from './sql';

describe('jsonRows / jsonRowsFrom (Postgres)', () => {
  let close: () => Promise<void>;
  let dataSource: DataSource;

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
  });

  afterAll(async () => {
    await close();
  });

  const columns = 'id uuid, name text, amount bigint, rate numeric, flag boolean, at timestamptz, day date, doc jsonb';

  it('reads every row back with its columns typed, in order, whatever the text holds', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const rows = [
      {
        id: '6f1c2a1e-0000-4000-8000-000000000001',
        name: `quote ' double " backslash \\ brace { } comma , newline \n tab \t unicode é €`,
        amount: 9007199254740991,
        rate: '19.5',
        flag: true,
        at,
        day: '2026-02-28',
        doc: { nested: [1, 'two', { three: null }], text: 'a"b\\c' },
      },
      { id: '6f1c2a1e-0000-4000-8000-000000000002', name: '', amount: -1, rate: '0', flag: false, at, day: '2026-03-01', doc: [] },
    ];
    const read = await queryRows(dataSource.manager, `select id, name, amount::text, rate::text, flag, at, day::text, doc from ${jsonRowsFrom(1, columns)}`, [
      jsonRows(rows),
    ]);
    expect(read).toEqual(rows.map((row) => ({ ...row, amount: String(row.amount) })));
  });

  it('reads an absent member and a JSON null as SQL null, in a jsonb column too', async () => {
    const [row] = await queryRows<Record<string, unknown>>(
      dataSource.manager,
      `select name is null as no_name, doc is null as no_doc, at is null as no_at from ${jsonRowsFrom(1, columns)}`,
      [jsonRows([{ id: '6f1c2a1e-0000-4000-8000-000000000003', name: undefined, doc: null }])],
    );
    expect(row).toEqual({ no_name: true, no_doc: true, no_at: true });
  });

  it('reads the parameter given by number, beside others', async () => {
    const read = await queryRows<{ id: string; tag: string }>(dataSource.manager, `select id, $1::text as tag from ${jsonRowsFrom(2, 'id uuid')}`, [
      'x',
      jsonRows([{ id: '6f1c2a1e-0000-4000-8000-000000000004' }]),
    ]);
    expect(read).toEqual([{ id: '6f1c2a1e-0000-4000-8000-000000000004', tag: 'x' }]);
  });

  it('reads no rows from an empty batch', async () => {
    expect(await queryRows(dataSource.manager, `select * from ${jsonRowsFrom(1, columns)}`, [jsonRows([])])).toEqual([]);
  });
});
