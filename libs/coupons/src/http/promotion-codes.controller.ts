import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import { assertNoInput, Caller, CallerContext, Clock, commandContext, IfMatch, Page, ResourceIdPipe, resourceDocs, Versioned } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { ArchivePromotionCodeCommand } from '../archive-promotion-code/archive-promotion-code.command';
import { CreatePromotionCodeCommand } from '../create-promotion-code/create-promotion-code.command';
import { PromotionCode, validateCreatePromotionCode } from '../domain';
import { CouponsReadModel } from '../read-model/coupons.read-model';
import { PromotionCodeView, toPromotionCodeView } from '../views';
import { CreatePromotionCodeBody, PromotionCodeDto, PromotionCodePageDto } from './coupon.dto';
import { parsePageQuery } from './page-query';

const PROMOTION_CODE_ID = { name: 'promotionCodeId', format: 'uuid', description: 'the promotion code id' } as const;
const PROMOTION_CODE_ID_PIPE = new ResourceIdPipe('promotion code');
const IF_MATCH = { name: 'if-match', required: false, description: 'The ETag of the version the change is based on; a stale one is a 409.' };
const ETAG = { etag: { description: 'the version of the promotion code, for If-Match', schema: { type: 'string', example: '"1"' } } };
const CREATED_HEADERS = {
  ...ETAG,
  location: { description: 'The new promotion code: /promotion-codes/{promotionCodeId}.', required: true, schema: { type: 'string' } },
};
const PROMOTION_CODE = resourceDocs({
  type: PromotionCodeDto,
  headers: ETAG,
  id: PROMOTION_CODE_ID,
  ifMatch: IF_MATCH,
  notFound: 'No such promotion code in this environment',
});

/** Promotion codes: what a customer types for a coupon (README: Coupons and promotion codes). */
@ApiTags('promotion codes')
@Controller('promotion-codes')
export class PromotionCodesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CouponsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @PROMOTION_CODE.create({
    summary: 'Create a promotion code',
    description: 'The code is unique in the environment case-insensitively; redeeming it redeems its coupon.',
    body: CreatePromotionCodeBody,
    answer: 'The new promotion code',
    headers: CREATED_HEADERS,
    conflict: 'The code is taken (promotion-code-taken), or the coupon is archived (coupon-archived)',
    invalid: 'Invalid body (every field error at its pointer): unknown property, malformed code, couponId naming no coupon of this environment, …',
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<PromotionCodeView>> {
    const input = validateCreatePromotionCode(body);
    const written = await this.commands.execute(new CreatePromotionCodeCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(written, `/promotion-codes/${written.id}`);
  }

  @Get()
  @PROMOTION_CODE.list({
    summary: 'List promotion codes',
    description: 'Newest first, keyset paging; archived ones too (status).',
    answer: 'A page of promotion codes',
    type: PromotionCodePageDto,
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<PromotionCodeView>> {
    return this.readModel.promotionCodes(caller.environmentId, parsePageQuery(query));
  }

  @Get(':promotionCodeId')
  @PROMOTION_CODE.read({ summary: 'Get a promotion code', answer: 'The promotion code' })
  async get(@Caller() caller: CallerContext, @Param('promotionCodeId', PROMOTION_CODE_ID_PIPE) id: string): Promise<Versioned<PromotionCodeView>> {
    const found = await this.readModel.promotionCode(caller.environmentId, id);
    if (!found) throw new NotFoundError('promotion code', id);
    return found;
  }

  @Put(':promotionCodeId/archive')
  @PROMOTION_CODE.action({
    summary: 'Archive a promotion code',
    description: 'No body (or {}). The code takes no new redemptions and stays taken.',
    answer: 'The archived promotion code',
    conflict: 'Already archived (promotion-code-archived), or If-Match is stale (version-conflict)',
  })
  async archive(
    @Caller() caller: CallerContext,
    @Param('promotionCodeId', PROMOTION_CODE_ID_PIPE) id: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<PromotionCodeView>> {
    assertNoInput(body);
    return answer(await this.commands.execute(new ArchivePromotionCodeCommand(caller.environmentId, id, commandContext(caller, this.clock), expectedVersion)));
  }
}

function answer({ version, state }: Written<PromotionCode>, location?: string): Versioned<PromotionCodeView> {
  return new Versioned(toPromotionCodeView(state), version, location);
}
