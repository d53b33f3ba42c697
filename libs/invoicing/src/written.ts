/** What a command wrote: the resource's id (a tax code's code) and its stream's version after the write. */
export interface Written {
  readonly id: string;
  readonly version: number;
}
