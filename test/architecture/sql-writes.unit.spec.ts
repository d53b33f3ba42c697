import { sqlWrites } from './sql-writes';

/** What the write-path test sees of a source: `<statement> <table>` per write found. */
function writes(source: string): string[] {
  return sqlWrites(source).map(({ statement, table }) => `${statement} ${table}`);
}

describe('sqlWrites, the SQL the write-path test sees', () => {
  it("finds a plain query('insert …')", () => {
    const fixture = `
      export async function sneak(manager: EntityManager): Promise<void> {
        await manager.query('insert into invoice_number_sequences (environment_id, type, last) values ($1, $2, 1)', ['e', 'invoice']);
      }`;
    expect(sqlWrites(fixture)).toEqual([{ statement: 'insert', table: 'invoice_number_sequences', line: 3 }]);
  });

  it('finds statements over many lines in a template literal, whatever their case and spacing', () => {
    const fixture = `
      await queryRows(
        manager,
        \`UPDATE   subscriptions
            SET status = $2
          WHERE id = $1\`,
        [id, status],
      );`;
    expect(writes(fixture)).toEqual(['update subscriptions']);
  });

  it('keeps an interpolated table as written', () => {
    expect(writes('tx.query(`delete from ${this.table} where id = $1`, [id]);')).toEqual(['delete ${this.table}']);
  });

  it('finds a statement split over strings joined with +, and a statement inside an interpolation', () => {
    expect(writes(`tx.query('insert ' + 'into ' + table + ' values ($1)', [1]);`)).toEqual(['insert ${table}']);
    expect(writes("tx.query(`with gone as (${sql('delete from invoices')}) select 1`);")).toEqual(['delete invoices']);
  });

  it('finds every kind of write, schema-qualified and quoted names too', () => {
    const fixture = `
      const statements = [
        'insert into billing.prices (id) values ($1)',
        'update only "Customers" c set name = $2',
        'delete from only usage_events where id = $1',
        'merge into invoices i using staged s on i.id = s.id when matched then update set total = s.total',
        'copy usage_events (id, properties) from stdin',
        'truncate table prices, products',
      ];`;
    expect(writes(fixture)).toEqual([
      'insert billing.prices',
      'update "Customers"',
      'delete usage_events',
      'merge invoices',
      'copy usage_events',
      'truncate prices, products',
    ]);
  });

  it('finds a write in a common table expression and an upsert once', () => {
    const fixture = `
      tx.query(\`with moved as (update webhook_deliveries set status = 'pending' where id = $1 returning id)
                 insert into webhook_delivery_attempts (id) select id from moved
                 on conflict (id) do update set id = excluded.id\`);`;
    expect(writes(fixture)).toEqual(['insert webhook_delivery_attempts', 'update webhook_deliveries']);
  });

  it('ignores comments, reads, row locks and prose', () => {
    const fixture = `
      // insert into invoices (id) values ($1)
      /** Then update subscriptions set status, delete from prices. */
      tx.query('select id from subscriptions where id = $1 for update skip locked');
      tx.query('copy (select 1) to stdout');
      throw new Error('cannot update the invoice: it is void');
      const summary = 'Delete (archive) a customer';`;
    expect(writes(fixture)).toEqual([]);
  });
});
