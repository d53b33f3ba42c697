import {
  austria,
  belgium,
  bulgaria,
  checkVAT,
  croatia,
  cyprus,
  czechRepublic,
  denmark,
  estonia,
  finland,
  france,
  germany,
  greece,
  hungary,
  ireland,
  italy,
  latvia,
  lithuania,
  luxembourg,
  malta,
  netherlands,
  poland,
  portugal,
  romania,
  slovakiaRepublic,
  slovenia,
  spain,
  sweden,
  unitedKingdom,
} from 'jsvat';

/**
 * EU VAT number prefixes: the member states' ISO codes, with Greece as `EL`
 * (its VAT prefix) and `XI` for Northern Ireland (VAT on goods, since 2021).
 */
export const EU_VAT_PREFIXES: readonly string[] = [
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'EL', 'ES', 'FI', 'FR', 'HR', 'HU',
  'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'XI',
]; // prettier-ignore

/** jsvat's rules for the member states only: its list also knows Norway, Switzerland, the UK and others, which are not EU VAT. */
const MEMBER_STATES = [
  austria, belgium, bulgaria, croatia, cyprus, czechRepublic, denmark, estonia, finland, france, germany, greece, hungary, ireland,
  italy, latvia, lithuania, luxembourg, malta, netherlands, poland, portugal, romania, slovakiaRepublic, slovenia, spain, sweden,
]; // prettier-ignore

const EU_VAT = /^([A-Z]{2})([0-9A-Z+*]{2,12})$/;

/**
 * What is wrong with a normalised `eu_vat` (uppercase, no separators), or null: the prefix must be a member
 * state's, and the rest must have that state's format and check digits (jsvat). Northern Ireland's XI numbers
 * are UK numbers, which jsvat checks under GB.
 */
export function euVatProblem(value: string): string | null {
  const match = EU_VAT.exec(value);
  if (!match) return 'an EU VAT number is a two-letter country prefix and 2 to 12 letters or digits, such as FI20774740';
  const [, prefix, number] = match;
  if (!EU_VAT_PREFIXES.includes(prefix)) return `'${prefix}' is not an EU VAT country prefix (${EU_VAT_PREFIXES.join(', ')}; Greece is EL)`;
  const valid = prefix === 'XI' ? checkVAT(`GB${number}`, [unitedKingdom]).isValid : checkVAT(value, MEMBER_STATES).isValid;
  return valid ? null : `is not a valid ${prefix} VAT number: its format or check digits are wrong`;
}
