import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import { Public } from '../auth/public.decorator';
import { allProblemTypes, problemType } from './problem-catalogue';

/** Serves the problem-type catalogue, so every `type` URI in an error resolves to its meaning. */
@ApiExcludeController()
@Public()
@Controller('problems')
export class ProblemsController {
  @Get()
  list() {
    return allProblemTypes();
  }

  @Get(':code')
  get(@Param('code') code: string) {
    const type = problemType(code);
    if (!type) throw new NotFoundError('problem type', code);
    return { type: `/problems/${code}`, ...type };
  }
}
