/**
 * `Retry-After` as seconds from `now`: either delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Returns undefined when absent or malformed (then the
 * normal backoff applies); a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
