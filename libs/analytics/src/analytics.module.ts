import { Module } from '@nestjs/common';
import { AnalyticsAnswers } from './http/analytics-answers';
import { AnalyticsController } from './http/analytics.controller';
import { AnalyticsLinks } from './page/analytics-links';
import { AnalyticsPageController } from './page/analytics-page.controller';
import { AnalyticsReadModel } from './read-model/analytics.read-model';

@Module({ controllers: [AnalyticsController, AnalyticsPageController], providers: [AnalyticsReadModel, AnalyticsAnswers, AnalyticsLinks] })
export class AnalyticsModule {}
