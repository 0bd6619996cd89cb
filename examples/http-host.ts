/**
 * Putting the engine behind HTTP: `promo-engine/http` gives the route table and a fetch-standard
 * handler; a Node host only bridges `node:http` to it (here with `@hono/node-server`). Any framework
 * that speaks fetch mounts the same handler (docs/http.md).
 */
import type { Server } from 'node:http'
import { createAdaptorServer } from '@hono/node-server'
import type { Engine } from '../src'
import { createFetchHandler, type FetchHandlerOptions } from '../src/http'

export function httpHost(engine: Engine, options: FetchHandlerOptions = {}): Server {
  return createAdaptorServer({ fetch: createFetchHandler(engine, options), overrideGlobalObjects: false }) as Server
}
