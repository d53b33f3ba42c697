import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import {
  ApiNoInput,
  ApiPageQuery,
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  IfMatch,
  Page,
  problemResponse,
  ResourceIdPipe,
  Versioned,
} from '@billing/platform';
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
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a promotion code',
    description: 'The code is unique in the environment case-insensitively; redeeming it redeems its coupon.',
  })
  @ApiBody({ type: CreatePromotionCodeBody })
  @ApiResponse({ status: 201, description: 'The new promotion code', type: PromotionCodeDto, headers: CREATED_HEADERS })
  @ApiResponse({ status: 409, ...problemResponse('The code is taken (promotion-code-taken), or the coupon is archived (coupon-archived)') })
  @ApiResponse({
    status: 422,
    ...problemResponse('Invalid body (every field error at its pointer): unknown property, malformed code, couponId naming no coupon of this environment, …'),
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<PromotionCodeView>> {
    const input = validateCreatePromotionCode(body);
    const written = await this.commands.execute(new CreatePromotionCodeCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(written, `/promotion-codes/${written.id}`);
  }

  @Get()
  @ApiOperation({ summary: 'List promotion codes', description: 'Newest first, keyset paging; archived ones too (status).' })
  @ApiPageQuery()
  @ApiResponse({ status: 200, description: 'A page of promotion codes', type: PromotionCodePageDto })
  @ApiResponse({ status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<PromotionCodeView>> {
    return this.readModel.promotionCodes(caller.environmentId, parsePageQuery(query));
  }

  @Get(':promotionCodeId')
  @ApiOperation({ summary: 'Get a promotion code' })
  @ApiParam(PROMOTION_CODE_ID)
  @ApiResponse({ status: 200, description: 'The promotion code', type: PromotionCodeDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such promotion code in this environment') })
  async get(@Caller() caller: CallerContext, @Param('promotionCodeId', PROMOTION_CODE_ID_PIPE) id: string): Promise<Versioned<PromotionCodeView>> {
    const found = await this.readModel.promotionCode(caller.environmentId, id);
    if (!found) throw new NotFoundError('promotion code', id);
    return found;
  }

  @ApiNoInput()
  @Put(':promotionCodeId/archive')
  @HttpCode(200)
  @ApiOperation({ summary: 'Archive a promotion code', description: 'No body (or {}). The code takes no new redemptions and stays taken.' })
  @ApiParam(PROMOTION_CODE_ID)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 200, description: 'The archived promotion code', type: PromotionCodeDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such promotion code in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('Already archived (promotion-code-archived), or If-Match is stale (version-conflict)') })
  @ApiResponse({ status: 422, ...problemResponse('A body with any property, or a malformed If-Match (/headers/if-match)') })
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
