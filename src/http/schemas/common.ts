/** Schemas shared by every resource: ids, timestamps, paging, problems. */
import { Type } from '@sinclair/typebox';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../paging.js';

/** A resource id: a positive integer, assigned by the server, never reused. */
export const Id = Type.Integer({ minimum: 1, readOnly: true, description: 'assigned by the server; increasing, never reused' });

/** A reference to another resource's id (read-only in the referring resource). */
export const RefId = Type.Integer({ minimum: 1, readOnly: true });

/** An id in a body: allowed, but it must equal the id in the path. */
export const BodyId = Type.Integer({ minimum: 1, description: 'optional; when given it must equal the id in the path' });

/** A read-only timestamp, RFC 3339 in UTC. */
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339, UTC', readOnly: true });

/** The id path parameter. */
export const IdParam = Type.Integer({ minimum: 1, description: 'a positive integer id' });

/** Paging query parameters of every list. */
export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'page size' }),
  after: Type.Integer({ minimum: 0, description: 'list only ids greater than this (from the Link header of the previous page)' }),
};

/** An RFC 9457 problem, as every error is answered. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: "'about:blank': the status says it all" }),
    title: Type.String({ description: 'the status reason phrase' }),
    status: Type.Integer(),
    detail: Type.String({ description: 'what was wrong, for a person' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'the offending body property or query parameter; (body) for the whole body' }),
          message: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem' },
);

/** The Link header of lists, as documented. */
export const LINK_HEADER = { Link: 'the next page, `<URL>; rel="next"`, while more remain' };
/** The Location header of creations, as documented. */
export const LOCATION_HEADER = { Location: 'the path of the created resource' };
