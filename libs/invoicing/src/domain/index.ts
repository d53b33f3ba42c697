/** The pure invoicing domain: arithmetic, the tax-code register, the Invoice aggregate and credit notes. */
export * from './invoice-maths';
export * from './tax-code';
export * from './invoice-events';
export * from './invoice';
export * from './invoice-commands';
export * from './invoice-decisions';
export { withCurrentTax } from './invoice-current-tax';
export * from './credit-notes';
export * from './customer';
export * from './customer-discounts';
export * from './customer-discount-decisions';
export * from './customer-balance-events';
export * from './customer-balance';
export * from './credit-note-issue';
