import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { resourceDocs } from '../openapi/route-docs';
import { Caller, CallerContext } from '../http/request-context';
import { parseAdvanceBody } from './advance-body';
import { ClockDrivenWorkRegistry } from './clock-driven-work';
import { EnvironmentClock, MAX_ADVANCE_YEARS } from './environment-clock';

class TestClockDto {
  @ApiProperty({ format: 'date-time', example: '2027-01-31T00:00:00.000Z', description: "The environment's current time (UTC, millisecond precision)" })
  now!: string;
}

class AdvanceTestClockBody {
  @ApiProperty({
    format: 'date-time',
    example: '2027-01-31T00:00:00Z',
    description: `The environment's new time: an RFC 3339 date-time with Z or an offset, not before its current time and at most ${MAX_ADVANCE_YEARS} years after it. Millisecond precision.`,
  })
  to!: string;
}

/**
 * Per-environment test clocks (only with TEST_CLOCKS=true; otherwise these
 * routes do not exist). Advancing answers once the billing engine and every
 * other clock-driven work has processed what fell due up to the new time.
 */
const CLOCK = resourceDocs({ type: TestClockDto });

@ApiTags('test clock')
@Controller('test-clock')
export class TestClockController {
  constructor(
    private readonly environmentClock: EnvironmentClock,
    private readonly registry: ClockDrivenWorkRegistry,
  ) {}

  @Get()
  @CLOCK.read({
    summary: "The environment's current time",
    description:
      'The base clock until the environment is first advanced; afterwards the instant it was advanced to, frozen until the next advance. ' +
      'Only with TEST_CLOCKS=true (404 route-not-found otherwise).',
    answer: "The environment's now",
  })
  async get(@Caller() caller: CallerContext): Promise<TestClockDto> {
    return { now: (await this.environmentClock.now(caller.environmentId)).toISOString() };
  }

  @Post('advance')
  @CLOCK.create({
    status: 200,
    summary: "Move the environment's time forward",
    description:
      `Sets the environment's now to \`to\` (frozen there until the next advance) and answers only after everything due up to it ` +
      '(renewals, billing, cancellations) has been processed for this environment. `to` equal to the current now changes nothing ' +
      `(and runs the catch-up again); before it, or more than ${MAX_ADVANCE_YEARS} years after it, is a 422 at /to. ` +
      'Only with TEST_CLOCKS=true (404 route-not-found otherwise).',
    body: AdvanceTestClockBody,
    answer: "The environment's new now, after the due work was processed",
    invalid: `Invalid body (pointer /to, or /<name> for an unknown property), \`to\` before the current time or more than ${MAX_ADVANCE_YEARS} years after it`,
  })
  async advance(@Caller() caller: CallerContext, @Body() body: unknown): Promise<TestClockDto> {
    const to = parseAdvanceBody(body);
    const now = await this.environmentClock.advance(caller.environmentId, to);
    await this.registry.catchUp(caller.environmentId, now);
    return { now: now.toISOString() };
  }
}
