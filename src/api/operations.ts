/**
 * Operation handlers as the spec types them: one handler per operationId in
 * spec/openapi.yaml (`Handlers` has a member for every operation of the generated
 * `operations`, so a missing one is a compile error), each seeing its own path
 * parameters, query and body (generated/openapi.d.ts). The spec router has checked
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

/** The openapi-backend context of one operation. Headers stay untyped: Node lower-cases their names (read them with req.get). */
export type OpContext<Op extends OperationId> = Context<BodyOf<Op>, PathOf<Op>, QueryOf<Op>>;

export type Handler<Op extends OperationId> = (c: OpContext<Op>, req: Request, res: Response) => Promise<void>;

/** Every operation's handler: what the router takes (router.ts). */
export type Handlers = { [Op in OperationId]: Handler<Op> };
