import { comparePositions, LogPosition } from './types';

/** What one batch read: its subscriber's events after the checkpoint, and what bounds them. */
export interface BatchPage {
  /** The subscriber's events the page read (in log order; all of them below the horizon). */
  readonly read: readonly LogPosition[];
  /** The page read every such event below the horizon (it was not full). */
  readonly complete: boolean;
  /** The snapshot horizon the page was read below (an xid8 as digits). */
  readonly horizon: string;
  /** The newest event of any stream below the horizon (read for 'head' only). */
  readonly head?: LogPosition;
}

/**
 * Where a batch moves its checkpoint past `reached` (its own last event applied, or its checkpoint), if anywhere:
 * - `ahead` 'head' (a live runner): to the newest event below the horizon, whatever its stream, when the page read
 *   every event after the checkpoint and that head lies `skipAheadEvents` further (by log position): a subscriber of
 *   rare streams otherwise read the whole log since its last event at every batch. Skipping ahead commits a
 *   checkpoint: worth it only once the log behind is long enough to cost a read.
 * - `ahead` a position (a replay bound to a live checkpoint): to that position once the page holds every event up to
 *   it: it read past it, or read every event after the checkpoint with the horizon past it (nothing up to it can
 *   commit later). The position may be another stream's event, where a live checkpoint skipped ahead: the
 *   subscriber's own events never reach it (issue 41 #2: a replay waited for that forever).
 */
export function checkpointTarget(ahead: 'head' | LogPosition | undefined, page: BatchPage, reached: LogPosition, skipAheadEvents: bigint): LogPosition | null {
  if (ahead === 'head') {
    const head = page.complete ? page.head : undefined;
    return head && BigInt(head.globalPosition) - BigInt(reached.globalPosition) >= skipAheadEvents ? head : null;
  }
  if (!ahead || comparePositions(ahead, reached) <= 0) return null;
  const readPast = page.read.length > 0 && comparePositions(page.read[page.read.length - 1], ahead) > 0;
  return readPast || (page.complete && BigInt(ahead.transactionId) < BigInt(page.horizon)) ? ahead : null;
}
