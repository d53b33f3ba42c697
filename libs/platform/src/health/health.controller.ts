import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { ProjectionRunner } from '@billing/event-store';
import { Public } from '../auth/public.decorator';
import { HttpProblem } from '../problems/problem';

/**
 * Liveness says the process answers; readiness says it can reach its
 * database, and reports how far each projection and reactor is behind the
 * log (lag is reported, not judged: a worker catching up after downtime
 * does not make the API unready, since writes run their own projections).
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runner: ProjectionRunner,
  ) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready() {
    try {
      await this.dataSource.query('select 1');
    } catch {
      throw new HttpProblem(503, 'database-unavailable', 'The database does not answer.');
    }
    const lag = await this.runner.lag();
    return {
      status: 'ok',
      checks: { database: 'ok' },
      projector: Object.fromEntries(lag.map((l) => [l.name, { kind: l.kind, eventsBehind: l.eventsBehind, checkpointUpdatedAt: l.checkpointUpdatedAt }])),
    };
  }
}
