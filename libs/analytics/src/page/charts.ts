import { escapeHtml } from '@billing/platform';

/**
 * The analytics page's charts as SVG, pure: a chart is columns (a month, an age bucket), each with one or more stacks
 * side by side; a stack's segments pile up from the axis, positive amounts above it and negative ones below, so a
 * stack's bars above the axis add up to its positive figures and those below to its negative ones. Every height is
 * the amount times one scale per chart. Every bar (zero ones too, of height 0) carries its figure in data attributes
 * (`data-column`, `data-kind`, `data-amount`, in minor units) so a test can compare the chart with the JSON.
 */
export interface Segment {
  readonly kind: string;
  readonly amount: number;
}

export interface Column {
  /** What the column is, in `data-column`: a month's first day, an age bucket. */
  readonly key: string;
  readonly label: string;
  /** Side by side; each stacked from the axis. */
  readonly stacks: readonly (readonly Segment[])[];
  /** A point drawn over the column and joined to its neighbours' (the MRR line). */
  readonly marker?: Segment;
}

export interface Bar {
  readonly column: string;
  readonly kind: string;
  readonly amount: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Marker {
  readonly column: string;
  readonly kind: string;
  readonly amount: number;
  readonly x: number;
  readonly y: number;
}

export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  /** The y of the zero line. */
  readonly axisY: number;
  /** Pixels per minor unit. */
  readonly scale: number;
  readonly bars: readonly Bar[];
  readonly markers: readonly Marker[];
  readonly labels: readonly { readonly x: number; readonly text: string }[];
}

export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 240;
const TOP = 12;
const BOTTOM = 30;
const SIDE = 8;

/** Where every bar, marker and label goes; the plot spans `height − TOP − BOTTOM` from the largest stack up to the deepest down. */
export function layoutChart(columns: readonly Column[], width = CHART_WIDTH, height = CHART_HEIGHT): ChartLayout {
  const up = Math.max(0, ...columns.flatMap((column) => [...column.stacks.map(positiveSum), Math.max(0, column.marker?.amount ?? 0)]));
  const down = Math.max(0, ...columns.flatMap((column) => [...column.stacks.map(negativeSum), Math.max(0, -(column.marker?.amount ?? 0))]));
  const plot = height - TOP - BOTTOM;
  const scale = up + down === 0 ? 0 : plot / (up + down);
  // Nothing below zero: the axis at the bottom; nothing at all: the axis there too.
  const axisY = round(TOP + up * scale + (up + down === 0 ? plot : 0));
  const columnWidth = columns.length === 0 ? 0 : (width - 2 * SIDE) / columns.length;
  const bars: Bar[] = [];
  const markers: Marker[] = [];
  columns.forEach((column, index) => {
    const left = SIDE + index * columnWidth;
    const barWidth = (columnWidth * 0.7) / Math.max(1, column.stacks.length);
    const gap = columnWidth * 0.15;
    column.stacks.forEach((stack, stackIndex) => {
      let above = 0;
      let below = 0;
      for (const { kind, amount } of stack) {
        const x = round(left + gap + stackIndex * barWidth);
        const barHeight = round(Math.abs(amount) * scale);
        if (amount >= 0) {
          above += amount;
          bars.push({ column: column.key, kind, amount, x, y: round(axisY - above * scale), width: round(barWidth), height: barHeight });
        } else {
          bars.push({ column: column.key, kind, amount, x, y: round(axisY + below * scale), width: round(barWidth), height: barHeight });
          below -= amount;
        }
      }
    });
    if (column.marker) markers.push({ column: column.key, ...column.marker, x: round(left + columnWidth / 2), y: round(axisY - column.marker.amount * scale) });
  });
  const labels = columns.map((column, index) => ({ x: round(SIDE + (index + 0.5) * columnWidth), text: column.label }));
  return { width, height, axisY, scale, bars, markers, labels };
}

/** Colours per kind, and what a kind is called in the legend and the tooltips. */
export interface KindStyle {
  readonly colour: string;
  readonly name: string;
}

/** The chart as an SVG element: as wide as its container (viewBox, width 100%), a tooltip per bar with its formatted figure. */
export function chartSvg(
  layout: ChartLayout,
  title: string,
  kinds: Readonly<Record<string, KindStyle>>,
  format: (amount: number) => string,
  columnName: (key: string) => string,
): string {
  const bars = layout.bars.map(
    (bar) =>
      `<rect class="bar" data-column="${escapeHtml(bar.column)}" data-kind="${escapeHtml(bar.kind)}" data-amount="${bar.amount}" x="${bar.x}" y="${bar.y}" width="${bar.width}" height="${bar.height}" fill="${kinds[bar.kind]?.colour ?? '#888'}"><title>${escapeHtml(`${columnName(bar.column)}, ${kinds[bar.kind]?.name ?? bar.kind}: ${format(bar.amount)}`)}</title></rect>`,
  );
  const line =
    layout.markers.length < 2
      ? ''
      : `<polyline points="${layout.markers.map((m) => `${m.x},${m.y}`).join(' ')}" fill="none" stroke="#1c1c1c" stroke-width="2"/>`;
  const markers = layout.markers.map(
    (marker) =>
      `<circle class="marker" data-column="${escapeHtml(marker.column)}" data-kind="${escapeHtml(marker.kind)}" data-amount="${marker.amount}" cx="${marker.x}" cy="${marker.y}" r="4" fill="#1c1c1c"><title>${escapeHtml(`${columnName(marker.column)}, ${kinds[marker.kind]?.name ?? marker.kind}: ${format(marker.amount)}`)}</title></circle>`,
  );
  const labels = layout.labels.map(
    (label) => `<text x="${label.x}" y="${layout.height - 8}" text-anchor="middle" font-size="18" fill="#555">${escapeHtml(label.text)}</text>`,
  );
  return [
    `<svg viewBox="0 0 ${layout.width} ${layout.height}" width="100%" role="img" aria-label="${escapeHtml(title)}" xmlns="http://www.w3.org/2000/svg">`,
    ...bars,
    `<line x1="0" x2="${layout.width}" y1="${layout.axisY}" y2="${layout.axisY}" stroke="#8a8f98" stroke-width="1"/>`,
    line,
    ...markers,
    ...labels,
    '</svg>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

function positiveSum(stack: readonly Segment[]): number {
  return stack.reduce((sum, { amount }) => sum + Math.max(0, amount), 0);
}

function negativeSum(stack: readonly Segment[]): number {
  return stack.reduce((sum, { amount }) => sum + Math.max(0, -amount), 0);
}

/** Two decimals: enough for a pixel, and stable text. */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}
