import { CommandMetadata, DomainEvent, Evolver, deciderOf } from '@billing/shared-kernel';

/**
 * The environment's default template group: the group documents render with
 * when none is named. One stream per environment (uuid v5 of its id); before
 * its first event the environment renders with the built-in templates.
 */
export const DEFAULT_TEMPLATE_GROUP_STREAM_TYPE = 'template-group-default';

export interface DefaultTemplateGroupSetData {
  readonly templateGroupId: string;
  readonly setAt: string;
}
export type DefaultTemplateGroupSet = DomainEvent<'DefaultTemplateGroupSet', DefaultTemplateGroupSetData>;
export type DefaultTemplateGroupEvent = DefaultTemplateGroupSet;

export interface DefaultTemplateGroupState {
  /** null: the built-in templates. */
  readonly templateGroupId: string | null;
}

export const defaultTemplateGroupEvolver: Evolver<DefaultTemplateGroupState, DefaultTemplateGroupEvent> = {
  initialState: () => ({ templateGroupId: null }),
  // Another event type (from a newer release) leaves the default as it was: its data is not a group id.
  evolve: (state, event) => (event.type === 'DefaultTemplateGroupSet' ? { templateGroupId: event.data.templateGroupId } : state),
};

/** Makes an existing group (the caller loaded it: a missing one is its 404) the default; already the default records nothing. */
export function decideSetDefaultTemplateGroup(templateGroupId: string, state: DefaultTemplateGroupState, meta: CommandMetadata): DefaultTemplateGroupSet[] {
  if (state.templateGroupId === templateGroupId) return [];
  return [{ type: 'DefaultTemplateGroupSet', schemaVersion: 1, data: { templateGroupId, setAt: meta.now.toISOString() } }];
}

/** The default template group aggregate as one value: what it folds (defaultTemplateGroupEvolver) and what each of its commands decides. */
export const defaultTemplateGroupDecider = deciderOf(defaultTemplateGroupEvolver, { SetDefaultTemplateGroup: decideSetDefaultTemplateGroup });
