import {
  childPointer,
  CommandMetadata,
  ConflictError,
  DomainEvent,
  Evolver,
  FieldError,
  NotFoundError,
  UNKNOWN_PROPERTY,
  ValidationError,
  deciderOf,
} from '@billing/shared-kernel';
import { DEFAULT_LOCALE, TEMPLATE_LIMITS, TEMPLATE_TYPES, TemplateType } from './template-types';

/**
 * The TemplateGroup aggregate: a named set of templates, one per type, with
 * the locale its documents are formatted in. One stream per group; its id is
 * the group id.
 */
export const TEMPLATE_GROUP_STREAM_TYPE = 'template-group';

export interface Template {
  readonly id: string;
  readonly type: TemplateType;
  readonly content: string;
}

export interface TemplateGroupCreatedData {
  readonly templateGroupId: string;
  readonly name: string;
  readonly locale: string;
  readonly templates: readonly Template[];
  readonly createdAt: string;
}
/** The name and locale after the update, in full. */
export interface TemplateGroupUpdatedData {
  readonly templateGroupId: string;
  readonly name: string;
  readonly locale: string;
  readonly updatedAt: string;
}
/** One template's new content, in full. */
export interface TemplateContentUpdatedData {
  readonly templateGroupId: string;
  readonly templateId: string;
  readonly type: TemplateType;
  readonly content: string;
  readonly updatedAt: string;
}

export type TemplateGroupCreated = DomainEvent<'TemplateGroupCreated', TemplateGroupCreatedData>;
export type TemplateGroupUpdated = DomainEvent<'TemplateGroupUpdated', TemplateGroupUpdatedData>;
export type TemplateContentUpdated = DomainEvent<'TemplateContentUpdated', TemplateContentUpdatedData>;
export type TemplateGroupEvent = TemplateGroupCreated | TemplateGroupUpdated | TemplateContentUpdated;

export interface TemplateGroup {
  readonly status: 'active';
  readonly id: string;
  readonly name: string;
  readonly locale: string;
  readonly templates: readonly Template[];
  readonly createdAt: string;
  readonly updatedAt: string;
}
export type TemplateGroupState = { readonly status: 'none' } | TemplateGroup;

export function evolveTemplateGroup(state: TemplateGroupState, event: TemplateGroupEvent): TemplateGroupState {
  switch (event.type) {
    case 'TemplateGroupCreated': {
      const { templateGroupId, name, locale, templates, createdAt } = event.data;
      return { status: 'active', id: templateGroupId, name, locale, templates, createdAt, updatedAt: createdAt };
    }
    case 'TemplateGroupUpdated':
      if (state.status === 'none') return state;
      return { ...state, name: event.data.name, locale: event.data.locale, updatedAt: event.data.updatedAt };
    case 'TemplateContentUpdated': {
      if (state.status === 'none') return state;
      const { templateId, type, content, updatedAt } = event.data;
      const known = state.templates.some((template) => template.id === templateId);
      const templates = known
        ? state.templates.map((template) => (template.id === templateId ? { ...template, content } : template))
        : [...state.templates, { id: templateId, type, content }];
      return { ...state, templates, updatedAt };
    }
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the group as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const templateGroupEvolver: Evolver<TemplateGroupState, TemplateGroupEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: evolveTemplateGroup,
};

/** The group, or 404. */
export function existingTemplateGroup(state: TemplateGroupState, templateGroupId: string): TemplateGroup {
  if (state.status === 'none') throw new NotFoundError('template group', templateGroupId);
  return state;
}

/** A group's template of a type; null when the group predates the type (it renders the built-in default). */
export function templateOfType(group: Pick<TemplateGroup, 'templates'>, type: TemplateType): Template | null {
  return group.templates.find((template) => template.type === type) ?? null;
}

// ---------------------------------------------------------------- input

export interface TemplateGroupInput {
  readonly name: string;
  readonly locale: string;
}

/**
 * Whether a locale is usable, and its canonical form: the edge passes what
 * the runtime's Intl knows (a pure check of a BCP 47 tag, no I/O).
 */
export type LocaleResolver = (tag: string) => string | null;

/** `{name, locale?}` for POST /templates and PUT /templates/{id}: name 1–250 characters, locale a BCP 47 tag (default en). */
export function validateTemplateGroupInput(body: unknown, resolveLocale: LocaleResolver): TemplateGroupInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object {name, locale?}');
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'name' && key !== 'locale') errors.push({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY });
  const { name, locale } = body as { name?: unknown; locale?: unknown };
  if (name === undefined || name === null) errors.push({ pointer: '/name', detail: 'is required' });
  else if (typeof name !== 'string') errors.push({ pointer: '/name', detail: 'must be a string' });
  else if (name.trim().length === 0 || [...name].length > TEMPLATE_LIMITS.nameMaxLength)
    errors.push({ pointer: '/name', detail: `must be 1 to ${TEMPLATE_LIMITS.nameMaxLength} characters, not only spaces` });
  let canonical = DEFAULT_LOCALE;
  if (locale !== undefined && locale !== null) {
    const resolved = typeof locale === 'string' && locale.length <= TEMPLATE_LIMITS.localeMaxLength ? resolveLocale(locale) : null;
    if (resolved === null) errors.push({ pointer: '/locale', detail: 'must be a BCP 47 language tag the service formats for, such as en, fi, de-CH' });
    else canonical = resolved;
  }
  if (errors.length > 0) throw new ValidationError('The template group is invalid.', errors);
  return { name: name as string, locale: canonical };
}

// ---------------------------------------------------------------- commands

export interface CreateTemplateGroup {
  readonly templateGroupId: string;
  readonly input: TemplateGroupInput;
  /** The built-in content of every type, given by the caller (the domain does not render). */
  readonly defaults: Readonly<Record<TemplateType, string>>;
}

export function decideCreateTemplateGroup(command: CreateTemplateGroup, state: TemplateGroupState, meta: CommandMetadata): TemplateGroupCreated[] {
  if (state.status !== 'none') throw new ConflictError('stream-exists', `template group ${command.templateGroupId} already exists`);
  const templates = TEMPLATE_TYPES.map((type) => ({ id: meta.newId(), type, content: command.defaults[type] }));
  return [
    {
      type: 'TemplateGroupCreated',
      schemaVersion: 1,
      data: { templateGroupId: command.templateGroupId, name: command.input.name, locale: command.input.locale, templates, createdAt: meta.now.toISOString() },
    },
  ];
}

/** Renaming or relocalising; the same name and locale again records nothing. */
export function decideUpdateTemplateGroup(
  command: { readonly templateGroupId: string; readonly input: TemplateGroupInput },
  state: TemplateGroupState,
  meta: CommandMetadata,
): TemplateGroupUpdated[] {
  const group = existingTemplateGroup(state, command.templateGroupId);
  if (group.name === command.input.name && group.locale === command.input.locale) return [];
  return [{ type: 'TemplateGroupUpdated', schemaVersion: 1, data: { templateGroupId: group.id, ...command.input, updatedAt: meta.now.toISOString() } }];
}

/** Where a template's Liquid fails to parse (1-based line and column), as the edge's syntax check found it. */
export interface SyntaxProblem {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

export interface UpdateTemplateContent {
  readonly templateGroupId: string;
  readonly templateId: string;
  readonly content: unknown;
  /** The syntax check of `content` (null: it parses); computed outside the domain by the Liquid sandbox. */
  readonly syntax: (content: string) => SyntaxProblem | null;
}

/** PUT /templates/{groupId}/templates/{templateId} `{content}`: the template must be the group's, the content a string that parses. */
export function decideUpdateTemplateContent(command: UpdateTemplateContent, state: TemplateGroupState, meta: CommandMetadata): TemplateContentUpdated[] {
  const group = existingTemplateGroup(state, command.templateGroupId);
  const template = group.templates.find((candidate) => candidate.id === command.templateId);
  if (!template) throw new NotFoundError('template', command.templateId);
  const content = command.content;
  if (typeof content !== 'string') throw ValidationError.at('/content', 'is required: a string of Liquid');
  if (content.length > TEMPLATE_LIMITS.contentMaxLength) throw ValidationError.at('/content', `must be at most ${TEMPLATE_LIMITS.contentMaxLength} characters`);
  const problem = command.syntax(content);
  if (problem) {
    const detail = `line ${problem.line}, column ${problem.column}: ${problem.message}`;
    // line and column as members of the field error too, for editors to place a marker.
    const error = { pointer: '/content', detail, line: problem.line, column: problem.column };
    throw new ValidationError(`The template does not parse: ${detail}`, [error], 'template-syntax-error');
  }
  if (template.content === content) return [];
  return [
    {
      type: 'TemplateContentUpdated',
      schemaVersion: 1,
      data: { templateGroupId: group.id, templateId: template.id, type: template.type, content, updatedAt: meta.now.toISOString() },
    },
  ];
}

/** The TemplateGroup aggregate as one value: what it folds (templateGroupEvolver) and what each of its commands decides. */
export const templateGroupDecider = deciderOf(templateGroupEvolver, {
  CreateTemplateGroup: decideCreateTemplateGroup,
  UpdateTemplateGroup: decideUpdateTemplateGroup,
  UpdateTemplateContent: decideUpdateTemplateContent,
});
