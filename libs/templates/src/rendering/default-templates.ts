import { TemplateType } from '../domain';

/**
 * The built-in templates: what a new group starts with, what an environment
 * without a default group renders with, and the fallback when a group's
 * template fails while an invoice is booked. Labels come from `labels`, in
 * the group's language (en, fi, de, sv; others read English).
 *
 * invoice_pdf and credit_note_pdf produce the HTML subset the PDF layout
 * understands (see docs/templates.md): h1–h3, p, div, table/tr/th/td with
 * `width="40%"` and `align`, strong/b, em/i, br, hr.
 */
const PARTY_AND_DATES = `<table>
<tr>
<td width="55%"><strong>{{ customer.name }}</strong>{% if customer.handle %} ({{ customer.handle }}){% endif %}{% for row in customer.addressLines %}<br>{{ row }}{% endfor %}</td>
<td width="45%" align="right">{{ labels.date }}: {{ invoice.date | date }}{% if invoice.dueDate %}<br>{{ labels.dueDate }}: {{ invoice.dueDate | date }}{% endif %}<br>{{ labels.currency }}: {{ invoice.currency }}</td>
</tr>
</table>`;

const LINES = `<table>
<tr><th width="40%">{{ labels.description }}</th><th width="12%" align="right">{{ labels.quantity }}</th><th width="17%" align="right">{{ labels.unitPrice }}</th><th width="11%" align="right">{{ labels.vat }}</th><th width="20%" align="right">{{ labels.amount }}</th></tr>
{% for line in lines %}<tr><td>{{ line.title }}{% if line.description %}<br><em>{{ line.description }}</em>{% endif %}{% if line.periodStart %}<br>{{ line.periodStart | date }} – {{ line.periodEnd | date }}{% endif %}</td><td align="right">{{ line.quantity | number }}</td><td align="right">{{ line.unitAmount | money }}</td><td align="right">{{ line.taxRate | percent }}</td><td align="right">{{ line.amount | money }}</td></tr>
{% endfor %}</table>`;

const TOTALS = `<table>
<tr><td width="55%"></td><td width="25%">{{ labels.subtotal }}</td><td width="20%" align="right">{{ totals.exclVat | money }}</td></tr>
<tr><td></td><td>{{ labels.totalVat }}</td><td align="right">{{ totals.vat | money }}</td></tr>
<tr><td></td><td><strong>{{ labels.total }}</strong></td><td align="right"><strong>{{ totals.inclVat | money }}</strong></td></tr>
{% if settlements.size > 0 %}<tr><td></td><td>{{ labels.settled }}</td><td align="right">{{ totals.settled | money }}</td></tr>
<tr><td></td><td><strong>{{ labels.due }}</strong></td><td align="right"><strong>{{ totals.due | money }}</strong></td></tr>{% endif %}
</table>
{% if settlements.size > 0 %}<h3>{{ labels.settlements }}</h3>
<table>
<tr><th width="25%">{{ labels.date }}</th><th width="50%">{{ labels.reference }}</th><th width="25%" align="right">{{ labels.amount }}</th></tr>
{% for settlement in settlements %}<tr><td>{{ settlement.date | date }}</td><td>{{ settlement.reference }}{% if settlement.note %} {{ settlement.note }}{% endif %}</td><td align="right">{{ settlement.amount | money }}</td></tr>
{% endfor %}</table>{% endif %}
{% if invoice.memo %}<p>{{ invoice.memo }}</p>{% endif %}`;

const INVOICE_PDF = `<h1>{{ labels.invoice }} {{ invoice.handle | default: labels.draft }}</h1>
${PARTY_AND_DATES}
${LINES}
${TOTALS}
`;

const CREDIT_NOTE_PDF = `<h1>{{ labels.creditNote }} {{ invoice.handle | default: labels.draft }}</h1>
${PARTY_AND_DATES}
${LINES}
${TOTALS}
`;

const INVOICE_EMAIL_HTML = `<p>{{ labels.greeting }} {{ customer.name }},</p>
<p>{{ labels.invoice }} {{ invoice.handle }}: <strong>{{ totals.due | money }}</strong>{% if invoice.dueDate %}, {{ labels.dueDate }} {{ invoice.dueDate | date }}{% endif %}.</p>
`;

export const BUILT_IN_TEMPLATES: Readonly<Record<TemplateType, string>> = Object.freeze({
  invoice_pdf: INVOICE_PDF,
  credit_note_pdf: CREDIT_NOTE_PDF,
  invoice_email_html: INVOICE_EMAIL_HTML,
});

export type Labels = Readonly<
  Record<
    | 'invoice'
    | 'creditNote'
    | 'draft'
    | 'date'
    | 'dueDate'
    | 'currency'
    | 'description'
    | 'quantity'
    | 'unitPrice'
    | 'vat'
    | 'amount'
    | 'subtotal'
    | 'totalVat'
    | 'total'
    | 'settled'
    | 'due'
    | 'settlements'
    | 'reference'
    | 'greeting',
    string
  >
>;

const LABELS: Readonly<Record<string, Labels>> = {
  en: {
    invoice: 'Invoice',
    creditNote: 'Credit note',
    draft: 'draft',
    date: 'Date',
    dueDate: 'Due date',
    currency: 'Currency',
    description: 'Description',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    vat: 'VAT',
    amount: 'Amount',
    subtotal: 'Total excl. VAT',
    totalVat: 'VAT',
    total: 'Total',
    settled: 'Paid',
    due: 'Due',
    settlements: 'Payments',
    reference: 'Reference',
    greeting: 'Hello',
  },
  fi: {
    invoice: 'Lasku',
    creditNote: 'Hyvityslasku',
    draft: 'luonnos',
    date: 'Päivämäärä',
    dueDate: 'Eräpäivä',
    currency: 'Valuutta',
    description: 'Kuvaus',
    quantity: 'Määrä',
    unitPrice: 'Yksikköhinta',
    vat: 'ALV',
    amount: 'Summa',
    subtotal: 'Veroton summa',
    totalVat: 'ALV',
    total: 'Yhteensä',
    settled: 'Maksettu',
    due: 'Maksettavaa',
    settlements: 'Maksut',
    reference: 'Viite',
    greeting: 'Hei',
  },
  de: {
    invoice: 'Rechnung',
    creditNote: 'Gutschrift',
    draft: 'Entwurf',
    date: 'Datum',
    dueDate: 'Fällig am',
    currency: 'Währung',
    description: 'Beschreibung',
    quantity: 'Menge',
    unitPrice: 'Einzelpreis',
    vat: 'USt.',
    amount: 'Betrag',
    subtotal: 'Summe netto',
    totalVat: 'USt.',
    total: 'Gesamt',
    settled: 'Bezahlt',
    due: 'Offen',
    settlements: 'Zahlungen',
    reference: 'Referenz',
    greeting: 'Hallo',
  },
  sv: {
    invoice: 'Faktura',
    creditNote: 'Kreditnota',
    draft: 'utkast',
    date: 'Datum',
    dueDate: 'Förfallodag',
    currency: 'Valuta',
    description: 'Beskrivning',
    quantity: 'Antal',
    unitPrice: 'À-pris',
    vat: 'Moms',
    amount: 'Belopp',
    subtotal: 'Summa exkl. moms',
    totalVat: 'Moms',
    total: 'Totalt',
    settled: 'Betalt',
    due: 'Att betala',
    settlements: 'Betalningar',
    reference: 'Referens',
    greeting: 'Hej',
  },
};

/** The labels of a locale's language (`fi-FI` → fi), English for any other. */
export function labelsFor(locale: string): Labels {
  return LABELS[locale.split('-')[0].toLowerCase()] ?? LABELS.en;
}
