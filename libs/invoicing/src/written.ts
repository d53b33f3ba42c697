/**
 * What a command wrote: the resource's id (a tax code's code), its stream's
 * version after the write, and its state then (what the write answers with:
 * the read models are not awaited yet inside a caller's unit of work).
 */
export interface Written<State> {
  readonly id: string;
  readonly version: number;
  readonly state: State;
}
