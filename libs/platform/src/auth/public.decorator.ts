import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'billing:isPublic';

/** Health, docs and the problem catalogue need neither a token nor an environment. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
