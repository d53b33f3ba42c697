import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/public.decorator';
import { HttpProblem } from '../problems/problem';

/** Liveness says the process answers; readiness says it can reach its database. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready() {
    try {
      await this.dataSource.query('select 1');
      return { status: 'ok', checks: { database: 'ok' } };
    } catch {
      throw new HttpProblem(503, 'database-unavailable', 'The database does not answer.');
    }
  }
}
