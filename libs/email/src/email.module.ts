import { HostedLinks } from '@billing/invoicing';
import { Module } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CommandPath, EventStore } from '@billing/event-store';
import { APP_CONFIG, AppConfig, ScopedClock } from '@billing/platform';
import { EmailLifecycle } from './email.lifecycle';
import { EmailController } from './http/email.controller';
import { EmailDispatcher } from './outbox/email-dispatcher';
import { EmailOutboxReactor } from './outbox/email-outbox.reactor';
import { mailTransportFor } from './outbox/mail-transport';
import { EmailDeliveriesReadModel } from './read-model/email-deliveries.read-model';
import { RequestInvoiceEmailHandler } from './send-invoice/request-invoice-email.handler';
import { UpdateEmailSettingsHandler } from './update-settings/update-email-settings.handler';

@Module({
  controllers: [EmailController],
  providers: [
    EmailDeliveriesReadModel,
    EmailOutboxReactor,
    HostedLinks,
    UpdateEmailSettingsHandler,
    RequestInvoiceEmailHandler,
    {
      provide: EmailDispatcher,
      inject: [DataSource, ScopedClock, CommandPath, EventStore, QueryBus, HostedLinks, APP_CONFIG],
      useFactory: (
        dataSource: DataSource,
        clock: ScopedClock,
        commands: CommandPath,
        eventStore: EventStore,
        queries: QueryBus,
        hostedLinks: HostedLinks,
        config: AppConfig,
      ) => {
        const transport = mailTransportFor(config.email);
        // Production without SMTP_URL: no dispatcher, nothing is sent (said at start).
        if (!transport) return null;
        // One dispatcher serves every environment: real time (the base clock), never an environment's test clock.
        return new EmailDispatcher(
          {
            dataSource,
            clock: clock.base,
            commands,
            eventStore,
            queries,
            hostedLinks,
            config: config.email,
            databaseUrl: config.databaseUrl,
            faultKillAt: config.faultKillAt,
          },
          transport,
        );
      },
    },
    EmailLifecycle,
  ],
  exports: [EmailDispatcher],
})
export class EmailModule {}
