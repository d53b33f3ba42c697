/** The pure invoicing domain: arithmetic, the tax-code register and the Invoice aggregate. */
export * from './invoice-maths';
export * from './tax-code';
export * from './invoice';
export * from './credit-notes';
