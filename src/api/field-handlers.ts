/**
 * listFields: the deployment's field catalogue (FIELDS_FILE, src/records/fields.ts), read-only:
 * it is configuration, read at start. The answer is made once; its ETag is a hash of its bytes,
 * equal on every instance with the same file.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { FieldCatalogue } from '../records/index.js';
import { etagMatches } from './label-response.js';
import type { Handlers } from './operations.js';

type CatalogueBody = components['schemas']['FieldCatalogue'];

/** The catalogue as the spec shows it. */
export function catalogueBody(catalogue: FieldCatalogue): CatalogueBody {
  return {
    fields: catalogue.fields.map((f) => ({ ...f })),
    source: catalogue.file === undefined ? 'none' : 'config',
    writable: false,
  };
}

export function fieldHandlers(catalogue: FieldCatalogue): Pick<Handlers, 'listFields'> {
  const body = Buffer.from(JSON.stringify(catalogueBody(catalogue)));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return {
    async listFields(_c, req, res) {
      res.set({ ETag: etag, 'Cache-Control': 'private, no-cache' });
      if (etagMatches(req.get('If-None-Match'), etag)) {
        res.status(304).end();
        return;
      }
      res.status(200).setHeader('Content-Type', 'application/json');
      res.set('Content-Length', String(body.length)).end(body);
    },
  };
}
