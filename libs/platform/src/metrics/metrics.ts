import { Controller, Get, Header, Injectable } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ProjectionRunner } from '@billing/event-store';
import { Public } from '../auth/public.decorator';

/**
 * The service's Prometheus registry. The platform records HTTP latency and
 * projector lag; contexts register their own figures (webhook outcomes and
 * queue depth, later billing figures) through `counter`/`gauge`.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(runner: ProjectionRunner) {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    new Gauge({
      name: 'projector_events_behind',
      help: 'Committed events a projection or reactor has not processed yet (counted up to 10 000).',
      labelNames: ['subscriber', 'kind'],
      registers: [this.registry],
      async collect() {
        for (const lag of await runner.lag()) this.set({ subscriber: lag.name, kind: lag.kind }, lag.eventsBehind);
      },
    });
  }

  counter<Label extends string>(name: string, help: string, labelNames: readonly Label[]): Counter<Label> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  gauge<Label extends string>(name: string, help: string, labelNames: readonly Label[], collect: (gauge: Gauge<Label>) => Promise<void>): Gauge<Label> {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await collect(this);
      },
    });
  }
}

/** GET /metrics in the Prometheus text format. Public like /health: it carries counts, never tenant data. */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
