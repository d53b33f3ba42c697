import { ProblemType } from '@billing/platform';

/** The problem types this context answers with (served at /problems/<code>). */
export const EMAIL_PROBLEMS: Record<string, ProblemType> = {
  'invoice-not-booked': {
    status: 409,
    title: 'Conflict',
    description: 'Only a booked invoice (or credit note), with its recorded PDF, is e-mailed; a draft is not.',
  },
};
