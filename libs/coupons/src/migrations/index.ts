import { CreateCouponsReadModels1764400300000 } from './1764400300000-create-coupons-read-models';

export const couponsMigrations: Function[] = [CreateCouponsReadModels1764400300000];
