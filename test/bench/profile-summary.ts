/**
 * Summarises a V8 CPU profile of the service under load (`node --cpu-prof
 * dist/apps/api/src/main.js`, load from another process):
 * `node dist/test/bench/profile-summary.js <file.cpuprofile> <requests> [<load seconds>]`.
 * Only the last `load seconds` + 1 of the profile count (start-up is left
 * out); busy time (not idle) is split by category and per request.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

/** First match wins. */
const CATEGORIES: ReadonlyArray<readonly [string, RegExp]> = [
  ['pg driver', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//],
  ['typeorm', /node_modules\/typeorm\//],
  ['class-validator/transformer', /node_modules\/(class-validator|class-transformer|validator)\//],
  ['Nest (+rxjs)', /node_modules\/(@nestjs\/[a-z-]+|rxjs|reflect-metadata)\//],
  ['fastify', /node_modules\/(fastify|find-my-way|@fastify\/[a-z-]+|secure-json-parse|fast-json-stringify)\//],
  ['node http client (webhook sends)', /^node:_http_(client|agent)/],
  ['node http server, net, streams', /^node:(_http|net|internal\/streams|internal\/stream_base)/],
  ['libs/webhooks', /dist\/libs\/webhooks\//],
  ['libs/platform', /dist\/libs\/platform\//],
  ['libs/event-store', /dist\/libs\/event-store\//],
  ['other libs (domain, read models)', /dist\/libs\//],
  ['prom-client', /node_modules\/prom-client\//],
];

function category({ functionName, url }: ProfileNode['callFrame']): string {
  if (functionName === '(idle)') return 'idle';
  if (SOCKET_WRITES.has(functionName)) return 'socket write syscalls';
  if (functionName === '(garbage collector)') return 'garbage collector';
  return CATEGORIES.find(([, pattern]) => pattern.test(url))?.[0] ?? 'other (V8, node internals, microtasks)';
}

function main(): void {
  const [file, requestsArg, secondsArg] = process.argv.slice(2);
  if (!file || !requestsArg) throw new Error('usage: profile-summary <file.cpuprofile> <requests> [<load seconds>]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  let time = profile.startTime;
  const times = profile.timeDeltas.map((delta) => (time += delta));
  const from = times[times.length - 1] - (Number(secondsArg ?? 10) + 1) * 1e6;
  const counts = new Map<string, number>();
  let total = 0;
  let first: number | null = null;
  profile.samples.forEach((id, index) => {
    if (times[index] < from) return;
    total += 1;
    first ??= times[index];
    const name = category(nodes.get(id)!.callFrame);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  const microsPerSample = (times[times.length - 1] - (first ?? 0)) / total;
  const busy = total - (counts.get('idle') ?? 0);
  const requests = Number(requestsArg);
  const lines = [
    `${requests} requests; busy ${Math.round((100 * busy) / total)} % of the window; ${Math.round((busy * microsPerSample) / requests)} µs of CPU per request`,
    '| where | share of busy | µs per request |',
    '|---|---:|---:|',
  ];
  for (const [name, count] of [...counts].filter(([name]) => name !== 'idle').sort((a, b) => b[1] - a[1])) {
    lines.push(`| ${name} | ${((100 * count) / busy).toFixed(1)} % | ${Math.round((count * microsPerSample) / requests)} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
