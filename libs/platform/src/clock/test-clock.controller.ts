import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { problemResponse } from '../openapi/openapi';
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
@ApiTags('test clock')
@Controller('test-clock')
export class TestClockController {
  constructor(
    private readonly environmentClock: EnvironmentClock,
    private readonly registry: ClockDrivenWorkRegistry,
  ) {}

  @Get()
  @ApiOperation({
    summary: "The environment's current time",
    description:
      'The base clock until the environment is first advanced; afterwards the instant it was advanced to, frozen until the next advance. ' +
      'Only with TEST_CLOCKS=true (404 route-not-found otherwise).',
  })
  @ApiResponse({ status: 200, description: "The environment's now", type: TestClockDto })
  async get(@Caller() caller: CallerContext): Promise<TestClockDto> {
    return { now: (await this.environmentClock.now(caller.environmentId)).toISOString() };
  }

  @Post('advance')
  @HttpCode(200)
  @ApiOperation({
    summary: "Move the environment's time forward",
    description:
      `Sets the environment's now to \`to\` (frozen there until the next advance) and answers only after everything due up to it ` +
      '(renewals, billing, cancellations) has been processed for this environment. `to` equal to the current now changes nothing ' +
      `(and runs the catch-up again); before it, or more than ${MAX_ADVANCE_YEARS} years after it, is a 422 at /to. ` +
      'Only with TEST_CLOCKS=true (404 route-not-found otherwise).',
  })
  @ApiBody({ type: AdvanceTestClockBody })
  @ApiResponse({ status: 200, description: "The environment's new now, after the due work was processed", type: TestClockDto })
  @ApiResponse({
    status: 422,
    ...problemResponse(
      `Invalid body (pointer /to, or /<name> for an unknown property), \`to\` before the current time or more than ${MAX_ADVANCE_YEARS} years after it`,
    ),
  })
  async advance(@Caller() caller: CallerContext, @Body() body: unknown): Promise<TestClockDto> {
    const to = parseAdvanceBody(body);
    const now = await this.environmentClock.advance(caller.environmentId, to);
    await this.registry.catchUp(caller.environmentId, now);
    return { now: now.toISOString() };
  }
}
