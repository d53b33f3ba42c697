import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { ValidationError } from '@billing/shared-kernel';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ScopedClock } from './scoped-clock';

/** How far one advance may move an environment's clock: calendar years from its current now. */
export const MAX_ADVANCE_YEARS = 5;

/**
 * Each environment's time. With TEST_CLOCKS on, an environment that was ever
 * advanced lives at its stored instant, frozen until the next advance; any
 * other environment (and every environment with TEST_CLOCKS off) follows the
 * base clock.
 */
@Injectable()
export class EnvironmentClock {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The environment's now: one prepared query with test clocks on, none otherwise. */
  async now(environmentId: string): Promise<Date> {
    if (!this.config.testClocks) return this.clock.base.now();
    const [row] = await queryRows<{ now: Date }>(this.dataSource.manager, `select now from environment_clocks where environment_id = $1`, [environmentId]);
    return row ? new Date(row.now) : this.clock.base.now();
  }

  /** Whether the environment's test clock was ever advanced (it then lives at simulated time). */
  async isAdvanced(environmentId: string): Promise<boolean> {
    if (!this.config.testClocks) return false;
    const rows = await queryRows(this.dataSource.manager, `select 1 from environment_clocks where environment_id = $1`, [environmentId]);
    return rows.length > 0;
  }

  /**
   * Moves the environment's clock to `to` and answers the new now. `to` may
   * equal the current now (nothing changes) but not precede it, and may be
   * at most MAX_ADVANCE_YEARS calendar years after it; else a 422 at `/to`.
   * Advances of one environment are serialised (a transaction-scoped advisory
   * lock), so each is checked against the now the previous one left.
   */
  async advance(environmentId: string, to: Date): Promise<Date> {
    if (!this.config.testClocks) throw new Error('test clocks are disabled (TEST_CLOCKS=false)');
    return this.dataSource.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`environment-clock\n${environmentId}`]);
      const [row]: Array<{ now: Date }> = await tx.query(`select now from environment_clocks where environment_id = $1`, [environmentId]);
      const current = row ? new Date(row.now) : this.clock.base.now();
      checkAdvance(current, to);
      await tx.query(
        `insert into environment_clocks (environment_id, now, updated_at) values ($1, $2, $3)
         on conflict (environment_id) do update set now = excluded.now, updated_at = excluded.updated_at`,
        [environmentId, to, this.clock.base.now()],
      );
      return new Date(to);
    });
  }
}

/** `to` against the environment's current now: not backwards, at most MAX_ADVANCE_YEARS calendar years ahead. */
export function checkAdvance(current: Date, to: Date): void {
  if (to.getTime() < current.getTime()) {
    throw ValidationError.at('/to', `must not be before the environment's current time ${current.toISOString()}: a test clock only moves forward`);
  }
  const limit = new Date(current);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_ADVANCE_YEARS);
  if (to.getTime() > limit.getTime()) {
    throw ValidationError.at(
      '/to',
      `must be at most ${MAX_ADVANCE_YEARS} years after the environment's current time ${current.toISOString()} (at most ${limit.toISOString()}); advance in several steps`,
    );
  }
}
