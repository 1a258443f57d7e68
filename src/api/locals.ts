/**
 * What the middleware and the router keep on `res.locals` for a request, declared
 * once (Express's `Locals`, merged into every Response), so every read has its type.
 */
import type { Logger } from 'pino';
import type { TokenInfo } from '../records/index.js';
import type { AuthResult, PathKeyResult } from './auth.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares Locals in this global namespace for merging
  namespace Express {
    interface Locals {
      /** The request's id (request-id.ts): in the X-Request-Id header, problems and log lines. */
      requestId?: string;
      /** The server's logger (exchange.ts), parent of `log`. */
      logger?: Logger;
      /** The request's logger, a child carrying its id, made on first use (request-id.ts). */
      log?: Logger;
      /** The operation the spec router matched (spec-router.ts), for the request metrics. */
      operationId?: string;
      /** The body was sent as JSON but does not parse (bodies.ts): a 400 once the credentials are checked. */
      bodyNotJson?: boolean;
      /** An image body's bytes (bodies.ts). */
      rawBody?: Buffer;
      /** The credentials check identify() made before rate limiting (auth.ts). */
      auth?: AuthResult;
      /** The integration key in the path identify() verified (auth.ts). */
      pathKey?: PathKeyResult;
      /** The token the request was authenticated with (router.ts; read it with tokenOf). */
      token?: TokenInfo;
    }
  }
}
