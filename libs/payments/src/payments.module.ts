import { HostedLinks } from '@billing/invoicing';
import { HostedPageController } from './hosted-page/hosted-page.controller';
import { GatewayWebhooksController } from './gateway-webhooks/gateway-webhooks.controller';
import { StripeEvents } from './gateway-webhooks/stripe-events';
import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@billing/platform';
import { DataSource } from 'typeorm';
import { CreatePaymentHandler } from './create-payment/create-payment.handler';
import { CredentialVault } from './credentials/credential-vault';
import { DisableProviderHandler } from './disable-provider/disable-provider.handler';
import { EnableProviderHandler } from './enable-provider/enable-provider.handler';
import { PaymentGateways } from './gateway/gateway-registry';
import { ManualGateway } from './gateway/manual-gateway';
import { SandboxGateway } from './gateway/sandbox-gateway';
import { StripeGateway } from './gateway/stripe/stripe-gateway';
import { PaymentProvidersController } from './http/payment-providers.controller';
import { PaymentSettingsController } from './http/payment-settings.controller';
import { CollectionEngine } from './collect-invoices/collection-engine';
import { AfterLastFailureReactor } from './collect-invoices/after-last-failure.reactor';
import { CollectionReactor } from './collect-invoices/collection.reactor';
import { CollectionStopReactor } from './collect-invoices/collection-stop.reactor';
import { PaymentSettlementsReactor } from './settle-invoices/payment-settlements.reactor';
import { CreditNoteRefundsReactor } from './refund-credit-notes/credit-note-refunds.reactor';
import { UpdatePaymentSettingsHandler } from './update-settings/update-payment-settings.handler';
import { PaymentsController } from './http/payments.controller';
import { PaymentFlow } from './payment-flow';
import { PaymentTermsHandler } from './payment-terms/payment-terms.handler';
import { InvoiceDirectRefundsHandler } from './invoice-direct-refunds/invoice-direct-refunds.handler';
import { InvoicePaymentTakenHandler } from './invoice-payment-taken/invoice-payment-taken.handler';
import { PaymentsReadModel } from './read-model/payments.read-model';
import { RefundPaymentHandler } from './refund-payment/refund-payment.handler';
import { PendingPaymentsResolver } from './resolve-payments/pending-payments.resolver';

/** The HTTP surface, handlers, gateways and resolver of the payments context (its definition is paymentsContext). */
@Module({
  controllers: [PaymentsController, PaymentProvidersController, PaymentSettingsController, HostedPageController, GatewayWebhooksController],
  providers: [
    PaymentsReadModel,
    CredentialVault,
    // One adapter per provider behind the PaymentGateway port: a real gateway is one more entry here.
    {
      provide: StripeGateway,
      inject: [DataSource, APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) => new StripeGateway(dataSource.manager, config.stripe),
    },
    {
      provide: PaymentGateways,
      inject: [DataSource, StripeGateway],
      useFactory: (dataSource: DataSource, stripe: StripeGateway) => new PaymentGateways([new SandboxGateway(dataSource.manager), new ManualGateway(), stripe]),
    },
    PaymentFlow,
    StripeEvents,
    CreatePaymentHandler,
    RefundPaymentHandler,
    EnableProviderHandler,
    DisableProviderHandler,
    PendingPaymentsResolver,
    UpdatePaymentSettingsHandler,
    PaymentTermsHandler,
    InvoicePaymentTakenHandler,
    InvoiceDirectRefundsHandler,
    CollectionReactor,
    CollectionStopReactor,
    AfterLastFailureReactor,
    PaymentSettlementsReactor,
    CreditNoteRefundsReactor,
    CollectionEngine,
    HostedLinks,
  ],
})
export class PaymentsModule {}
