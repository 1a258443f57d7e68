/**
 * Operation handlers as the spec types them: one handler per operationId in
 * spec/openapi.yaml (`Handlers` has a member for every operation of the generated
 * `operations`, so a missing one is a compile error), each seeing its own path
 * parameters, query, request headers and body (generated/openapi.d.ts). The spec router has checked
 * the request against those same schemas before a handler runs (spec-router.ts).
 */
import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { operations } from '../../generated/openapi.js';

export type OperationId = keyof operations;

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];

/** The parsed request's object for parameters an operation does not have: empty. */
type OrNone<T> = [T] extends [never] ? Record<never, never> : T;

/** An operation's path parameters. */
export type PathOf<Op extends OperationId> = OrNone<NonNullable<ParametersOf<Op>['path']>>;

/** An operation's query, parsed and coerced (print=true is a boolean). */
export type QueryOf<Op extends OperationId> = OrNone<NonNullable<ParametersOf<Op>['query']>>;

/**
 * An operation's request body: the schema of its media types (JSON and form bodies are
 * parsed, bodies.ts), the bytes for an image, which are undefined when none were sent
 * (the spec router checks a required body only where it has a schema). Undefined for
 * an operation that takes none.
 */
export type BodyOf<Op extends OperationId> = BodyIn<NonNullable<operations[Op]['requestBody']>>;

type BodyIn<RequestBody> = [RequestBody] extends [never]
  ? undefined
  : RequestBody extends { content: infer Content }
    ? { [Type in keyof Content]: Type extends `image/${string}` ? Buffer | undefined : Content[Type] }[keyof Content]
    : undefined;

/** An operation's request headers as the spec declares them, under the spec's names (`Idempotency-Key`). */
export type HeadersOf<Op extends OperationId> = OrNone<NonNullable<ParametersOf<Op>['header']>>;

/**
 * The declared headers as a handler reads them: `c.request.headers['idempotency-key']`.
 * HTTP header names are case-insensitive, and openapi-backend hands them over lower-cased
 * (as Node does), so the spec's names are lower-cased here: a header the operation does
 * not declare, or a misspelt one, does not compile. (Other headers are there at run time,
 * authorization among them; handlers have no business with them.)
 */
export type RequestHeadersOf<Op extends OperationId> = { [Name in keyof HeadersOf<Op> as Lowercase<Name & string>]: HeadersOf<Op>[Name] };

/** The openapi-backend context of one operation. */
export type OpContext<Op extends OperationId> = Context<BodyOf<Op>, PathOf<Op>, QueryOf<Op>, RequestHeadersOf<Op>>;

export type Handler<Op extends OperationId> = (c: OpContext<Op>, req: Request, res: Response) => Promise<void>;

/** Every operation's handler: what the router takes (router.ts). */
export type Handlers = { [Op in OperationId]: Handler<Op> };
