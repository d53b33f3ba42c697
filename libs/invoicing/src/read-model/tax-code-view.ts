import { TaxCode, TaxCodeState, taxRateOf } from '../domain';

/** A tax code as the API returns it: the rate as a fraction (0.255), as clients send it. */
export interface TaxCodeView {
  readonly code: string;
  readonly rate: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
}

export function toTaxCodeView(taxCode: TaxCode): TaxCodeView {
  return {
    code: taxCode.code,
    rate: taxRateOf(taxCode),
    taxable: taxCode.taxable,
    description: taxCode.description,
    createdAt: taxCode.createdAt,
    updatedAt: taxCode.updatedAt,
  };
}

/** The tax code's resource view, null before it exists: the `tax-code` stream's view for notifications. */
export function taxCodeViewOf(state: TaxCodeState): TaxCodeView | null {
  return state.status === 'none' ? null : toTaxCodeView(state);
}
