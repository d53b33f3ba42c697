import { ValidateBy } from 'class-validator';

/**
 * A member the API requires but lets be null (`handle` and `name` of
 * InvoiceCustomer): null or a string of at most `maxLength` characters;
 * absent is an error, with one message whatever is wrong.
 */
export function IsRequiredNullableString(maxLength: number): PropertyDecorator {
  return ValidateBy({
    name: 'isRequiredNullableString',
    validator: {
      validate: (value: unknown) => value === null || (typeof value === 'string' && value.length <= maxLength),
      defaultMessage: () => `is required: a string of at most ${maxLength} characters, or null`,
    },
  });
}
