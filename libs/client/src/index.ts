import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

/** Headers the client sends on every call, so no call has to name them. */
type ClientHeaders = 'x-environment';
type WithoutClientHeaders<Parameters> = Parameters extends { header: infer Header }
  ? Omit<Parameters, 'header'> & { header?: Omit<Header, ClientHeaders> }
  : Parameters;
type ClientOperation<Operation> = Operation extends { parameters: infer Parameters }
  ? Omit<Operation, 'parameters'> & { parameters: WithoutClientHeaders<Parameters> }
  : Operation;
/** The document's paths as a client calls them: the environment header comes from the client. */
export type ClientPaths = { [Path in keyof paths]: { [Method in keyof paths[Path]]: ClientOperation<paths[Path][Method]> } };

/** A typed client of the billing API: every path, parameter, body and answer as `/openapi.json` declares them. */
export type BillingClient = Client<ClientPaths>;

export interface BillingClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service listens, e.g. `http://localhost:3000`. */
  readonly baseUrl: string;
  /** A bearer token (JWT) whose `environments` claim names `environmentId`. */
  readonly token: string;
  /** The environment every call acts on (the `x-environment` header). */
  readonly environmentId: string;
}

/**
 * The client API consumers use: `openapi-fetch` over the types `openapi-typescript` generates from the served
 * document (`npm run client:generate` writes them to `schema.d.ts`; `npm run client:check` fails when they differ).
 * Calls answer `{ data, error, response }`: `error` is the problem document of a 4xx or 5xx.
 */
export function createBillingClient({ baseUrl, token, environmentId, headers, ...options }: BillingClientOptions): BillingClient {
  return createClient<ClientPaths>({
    ...options,
    baseUrl,
    headers: { ...headers, authorization: `Bearer ${token}`, 'x-environment': environmentId },
  });
}
