import { Module } from '@nestjs/common';
import { AnalyticsController } from './http/analytics.controller';
import { AnalyticsReadModel } from './read-model/analytics.read-model';

@Module({ controllers: [AnalyticsController], providers: [AnalyticsReadModel] })
export class AnalyticsModule {}
