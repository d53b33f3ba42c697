import { BatchPage, checkpointTarget } from './checkpoint-target';
import { LogPosition } from './types';

const at = (transactionId: number, globalPosition: number): LogPosition => ({ transactionId: String(transactionId), globalPosition: String(globalPosition) });
const page = (over: Partial<BatchPage> = {}): BatchPage => ({ read: [], complete: true, horizon: '100', ...over });

describe('checkpointTarget: where a batch moves its checkpoint past its last event', () => {
  describe("a live batch ('head')", () => {
    it('given a complete page and the head far enough ahead, moves to the head', () => {
      expect(checkpointTarget('head', page({ head: at(90, 2000) }), at(10, 500), 1000n)).toEqual(at(90, 2000));
    });

    it('given the head less than skipAheadEvents ahead, stays', () => {
      expect(checkpointTarget('head', page({ head: at(90, 1499) }), at(10, 500), 1000n)).toBeNull();
    });

    it('given a full page (more of its own events to read), stays', () => {
      expect(checkpointTarget('head', page({ complete: false, head: at(90, 5000) }), at(10, 500), 1000n)).toBeNull();
    });
  });

  describe('a batch bound to a position (a replay following a live checkpoint)', () => {
    const bound = at(50, 700);

    it('given a complete page below a horizon past the bound, moves to the bound, another stream’s event', () => {
      expect(checkpointTarget(bound, page({ read: [at(20, 600)] }), at(20, 600), 1000n)).toEqual(bound);
      expect(checkpointTarget(bound, page(), at(0, 0), 1000n)).toEqual(bound);
    });

    it('given a page that read past the bound, moves to the bound even when full', () => {
      expect(checkpointTarget(bound, page({ read: [at(20, 600), at(60, 800)], complete: false }), at(20, 600), 1000n)).toEqual(bound);
    });

    it('given a full page that ends before the bound, stays at its last event (the next batch reads on)', () => {
      expect(checkpointTarget(bound, page({ read: [at(20, 600)], complete: false }), at(20, 600), 1000n)).toBeNull();
    });

    it('given the horizon not past the bound (an older transaction may still commit below it), stays', () => {
      expect(checkpointTarget(bound, page({ horizon: '50' }), at(20, 600), 1000n)).toBeNull();
    });

    it('given the checkpoint at or past the bound, stays', () => {
      expect(checkpointTarget(bound, page(), bound, 1000n)).toBeNull();
      expect(checkpointTarget(bound, page(), at(60, 800), 1000n)).toBeNull();
    });
  });

  it('without ahead (a rebuild page), stays', () => {
    expect(checkpointTarget(undefined, page({ head: at(90, 5000) }), at(0, 0), 1n)).toBeNull();
  });
});
