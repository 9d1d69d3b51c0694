import {
  defaultFieldResolver,
  getNullableType,
  GraphQLInt,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from "graphql";
import { asId } from "../services/input.ts";

/** `id`, `seriesId`, `fileId`, `downloadId`, `mappingId`: an argument that names a row. */
const ID_ARGUMENT = /^(id|[a-z][A-Za-z]*Id)$/;

/**
 * GraphQL's Int lets 0, −1 and every other 32-bit integer through, where REST reads a path or
 * query id as plain digits from 1 to 2³¹−1 (services/input.ts asId). Every Int argument named as
 * an id is read the same way before the resolver runs, so both transports answer a malformed id
 * with 400 `bad_request` and only a well-formed unknown one with the kind's 404.
 */
export function readIdsAsRest(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const ids = field.args
        .filter((a) => ID_ARGUMENT.test(a.name) && getNullableType(a.type) === GraphQLInt)
        .map((a) => a.name);
      if (ids.length === 0) continue;
      const check = (args: Record<string, unknown>) => {
        for (const name of ids) {
          const v = args[name];
          if (v !== null && v !== undefined) asId(v as number, name);
        }
      };
      const wrap = <S, C>(fn: GraphQLFieldResolver<S, C> | undefined) =>
        fn &&
        ((source: S, args: Record<string, unknown>, context: C, info: Parameters<GraphQLFieldResolver<S, C>>[3]) => {
          check(args);
          return fn(source, args, context, info);
        });
      field.resolve = wrap(field.resolve ?? defaultFieldResolver);
      field.subscribe = wrap(field.subscribe);
    }
  }
  return schema;
}
