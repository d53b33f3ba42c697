import fc from 'fast-check';
import { chartSvg, Column, layoutChart } from './charts';

const column = (key: string, stacks: Column['stacks'], marker?: Column['marker']): Column => ({ key, label: key, stacks, ...(marker ? { marker } : {}) });
const amount = fc.integer({ min: -5_000_000, max: 5_000_000 });

describe('chart layout', () => {
  it('given any figures, when laid out, then every bar is its amount times one scale high, zero ones included', () => {
    fc.assert(
      fc.property(fc.array(fc.array(amount, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 12 }), (figures) => {
        const layout = layoutChart(figures.map((values, i) => column(`c${i}`, [values.map((value, k) => ({ kind: `k${k}`, amount: value }))])));
        expect(layout.bars).toHaveLength(figures.flat().length);
        for (const bar of layout.bars) expect(bar.height).toBeCloseTo(Math.abs(bar.amount) * layout.scale, 1);
      }),
    );
  });

  it('given a stack of positive and negative movements, then its bars above the axis add up to its positives and those below to its negatives', () => {
    fc.assert(
      fc.property(fc.array(amount, { minLength: 1, maxLength: 6 }), (values) => {
        const layout = layoutChart([column('2026-01-01', [values.map((value, k) => ({ kind: `k${k}`, amount: value }))])]);
        const above = layout.bars.filter((bar) => bar.amount > 0);
        const below = layout.bars.filter((bar) => bar.amount < 0);
        const positives = values.filter((v) => v > 0).reduce((s, v) => s + v, 0);
        const negatives = values.filter((v) => v < 0).reduce((s, v) => s - v, 0);
        expect(above.reduce((s, bar) => s + bar.amount, 0)).toBe(positives);
        expect(below.reduce((s, bar) => s - bar.amount, 0)).toBe(negatives);
        // Stacked without gaps: the top of the pile is the positives' height above the axis, the bottom the negatives' below.
        if (above.length > 0) expect(Math.min(...above.map((bar) => bar.y))).toBeCloseTo(layout.axisY - positives * layout.scale, 1);
        if (below.length > 0) expect(Math.max(...below.map((bar) => bar.y + bar.height))).toBeCloseTo(layout.axisY + negatives * layout.scale, 1);
        for (const bar of above) expect(bar.y + bar.height).toBeLessThanOrEqual(layout.axisY + 0.02);
        for (const bar of below) expect(bar.y).toBeGreaterThanOrEqual(layout.axisY - 0.02);
      }),
    );
  });

  it('given bars of 3 000 and 1 000, then the first is three times as high, and the tallest fills the plot', () => {
    const layout = layoutChart([column('a', [[{ kind: 'x', amount: 3_000 }]]), column('b', [[{ kind: 'x', amount: 1_000 }]])], 640, 240);
    const [a, b] = layout.bars;
    expect(a.height).toBeCloseTo(3 * b.height, 1);
    expect(a.height).toBe(198); // 240 − 12 top − 30 for the labels
    expect(a.y + a.height).toBe(layout.axisY);
    expect(b.y).toBeGreaterThan(a.y);
  });

  it('given only zeros (or no column), then every bar is 0 high on the axis at the bottom, no division by zero', () => {
    const layout = layoutChart([column('a', [[{ kind: 'x', amount: 0 }], [{ kind: 'y', amount: 0 }]], { kind: 'mrr', amount: 0 })]);
    expect(layout.scale).toBe(0);
    expect(layout.axisY).toBe(210);
    expect(layout.bars.map((bar) => [bar.height, bar.y])).toEqual([
      [0, 210],
      [0, 210],
    ]);
    expect(layout.markers[0].y).toBe(210);
    expect(layoutChart([]).bars).toEqual([]);
  });

  it('given only a negative figure, then the axis is at the top and the bar hangs below it', () => {
    const layout = layoutChart([column('a', [[{ kind: 'churn', amount: -500 }]])]);
    expect(layout.axisY).toBe(12);
    expect(layout.bars[0]).toMatchObject({ y: 12, height: 198, amount: -500 });
  });

  it('given side-by-side stacks, then they do not overlap and each starts at the axis', () => {
    const layout = layoutChart([column('m', [[{ kind: 'invoiced', amount: 900 }], [{ kind: 'collected', amount: -300 }]])]);
    const [invoiced, collected] = layout.bars;
    expect(collected.x).toBeGreaterThanOrEqual(invoiced.x + invoiced.width - 0.01);
    expect(invoiced.y + invoiced.height).toBe(layout.axisY);
    expect(collected.y).toBe(layout.axisY);
  });

  it('given a marker above every bar, then the scale includes it', () => {
    const layout = layoutChart([column('m', [[{ kind: 'new', amount: 100 }]], { kind: 'mrr', amount: 400 })]);
    expect(layout.markers[0]).toMatchObject({ amount: 400, y: 12 });
    expect(layout.bars[0].height).toBe(49.5);
  });
});

describe('chart SVG', () => {
  it('scales to its container and carries every figure in data attributes, text escaped', () => {
    const layout = layoutChart([
      column('2026-01-01', [[{ kind: 'new', amount: 9_300 }]], { kind: 'mrr', amount: 9_300 }),
      column('2026-02-01', [[{ kind: 'churn', amount: -3_100 }]], { kind: 'mrr', amount: 6_200 }),
    ]);
    const svg = chartSvg(
      layout,
      'MRR <chart>',
      { new: { colour: '#0a0', name: 'New' } },
      (n) => `€${n / 100}`,
      (key) => key,
    );
    expect(svg).toMatch(/^<svg viewBox="0 0 640 240" width="100%"/);
    expect(svg).toContain('aria-label="MRR &#60;chart&#62;"');
    expect(svg).toContain('data-column="2026-01-01" data-kind="new" data-amount="9300"');
    expect(svg).toContain('data-column="2026-02-01" data-kind="churn" data-amount="-3100"');
    expect(svg).toContain('data-column="2026-02-01" data-kind="mrr" data-amount="6200"');
    expect(svg).toContain('<title>2026-01-01, New: €93</title>');
    expect(svg).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
  });
});
