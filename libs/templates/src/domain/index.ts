export * from './template-types';
export * from './template-group';
export * from './default-group';
export * from './invoice-document';
