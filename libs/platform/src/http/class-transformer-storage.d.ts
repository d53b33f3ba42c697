/**
 * class-transformer's metadata store, which its package declares under
 * types/ but does not map for a deep import: only the one look-up used here.
 */
declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: {
    findTypeMetadata(target: Function, propertyName: string): { typeFunction(): unknown } | undefined;
  };
}
