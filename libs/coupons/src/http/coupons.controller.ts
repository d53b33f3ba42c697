import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import { assertNoInput, Caller, CallerContext, Clock, commandContext, IfMatch, Page, ResourceIdPipe, resourceDocs, Versioned } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { ArchiveCouponCommand } from '../archive-coupon/archive-coupon.command';
import { CreateCouponCommand } from '../create-coupon/create-coupon.command';
import { Coupon, validateCreateCoupon, validateUpdateCoupon } from '../domain';
import { CouponsReadModel } from '../read-model/coupons.read-model';
import { UpdateCouponCommand } from '../update-coupon/update-coupon.command';
import { CouponView, toCouponView } from '../views';
import { CouponDto, CouponPageDto, CreateCouponBody, UpdateCouponBody } from './coupon.dto';
import { parsePageQuery } from './page-query';

const COUPON_ID = { name: 'couponId', format: 'uuid', description: 'the coupon id' } as const;
/** Path ids are uuids; anything else names no coupon: 404 like an unknown id. */
const COUPON_ID_PIPE = new ResourceIdPipe('coupon');
const IF_MATCH = { name: 'if-match', required: false, description: 'The ETag of the version the change is based on; a stale one is a 409.' };
const ETAG = { etag: { description: 'the version of the coupon, for If-Match', schema: { type: 'string', example: '"1"' } } };
const CREATED_HEADERS = { ...ETAG, location: { description: 'The new coupon: /coupons/{couponId}.', required: true, schema: { type: 'string' } } };
const INVALID_COUPON =
  'Invalid body (every field error at its pointer): unknown property, both or neither of percentOff and amountOff, percentOff outside 0.01–100 or with more than 2 decimals, ' +
  'an unknown currency or an amount below 1, repeating without durationInMonths (1–120) or durationInMonths without repeating, a malformed code, redeemBy or appliesTo, ' +
  'or an appliesTo product that does not exist in this environment';
const COUPON = resourceDocs({ type: CouponDto, headers: ETAG, id: COUPON_ID, ifMatch: IF_MATCH, notFound: 'No such coupon in this environment' });

/** Coupons: reusable discounts (README: Coupons and promotion codes). Bodies are validated by the domain. */
@ApiTags('coupons')
@Controller('coupons')
export class CouponsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CouponsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @COUPON.create({
    summary: 'Create a coupon',
    description: 'A percentage or an amount per currency off, once, for some months or forever.',
    body: CreateCouponBody,
    answer: 'The new coupon',
    headers: CREATED_HEADERS,
    conflict: 'Another coupon of the environment has the code (coupon-code-taken)',
    invalid: INVALID_COUPON,
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<CouponView>> {
    const input = validateCreateCoupon(body);
    const written = await this.commands.execute(new CreateCouponCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(written, `/coupons/${written.id}`);
  }

  @Get()
  @COUPON.list({
    summary: 'List coupons',
    description: 'Newest first, keyset paging; archived ones too (status).',
    answer: 'A page of coupons',
    type: CouponPageDto,
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<CouponView>> {
    return this.readModel.coupons(caller.environmentId, parsePageQuery(query));
  }

  @Get(':couponId')
  @COUPON.read({ summary: 'Get a coupon', answer: 'The coupon' })
  async get(@Caller() caller: CallerContext, @Param('couponId', COUPON_ID_PIPE) couponId: string): Promise<Versioned<CouponView>> {
    const found = await this.readModel.coupon(caller.environmentId, couponId);
    if (!found) throw new NotFoundError('coupon', couponId);
    return found;
  }

  @Put(':couponId')
  @COUPON.write({
    summary: 'Update a coupon',
    description: 'Only name, maxRedemptions (upward; null is unlimited) and redeemBy (null: none); members left out are kept. The terms never change.',
    body: UpdateCouponBody,
    answer: 'The updated coupon',
    conflict: 'Archived (coupon-archived), or If-Match is stale (version-conflict)',
    invalid: 'Unknown property, invalid value, maxRedemptions lowered, or a malformed If-Match (/headers/if-match)',
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('couponId', COUPON_ID_PIPE) couponId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<CouponView>> {
    const input = validateUpdateCoupon(body);
    return answer(
      await this.commands.execute(new UpdateCouponCommand(caller.environmentId, couponId, input, commandContext(caller, this.clock), expectedVersion)),
    );
  }

  @Put(':couponId/archive')
  @COUPON.action({
    summary: 'Archive a coupon',
    description: 'No body (or {}). No new redemptions; discounts already applied run their course.',
    answer: 'The archived coupon',
    conflict: 'Already archived (coupon-archived), or If-Match is stale (version-conflict)',
  })
  async archive(
    @Caller() caller: CallerContext,
    @Param('couponId', COUPON_ID_PIPE) couponId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<CouponView>> {
    assertNoInput(body);
    return answer(await this.commands.execute(new ArchiveCouponCommand(caller.environmentId, couponId, commandContext(caller, this.clock), expectedVersion)));
  }
}

function answer({ version, state }: Written<Coupon>, location?: string): Versioned<CouponView> {
  return new Versioned(toCouponView(state), version, location);
}
