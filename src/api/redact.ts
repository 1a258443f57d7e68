/**
 * Request targets fit for logs. Tokens belong in the Authorization header (never
 * logged), but clients still put them in URLs (`?access_token=`, an API key pasted
 * into a path), and integration keys are in the path by design: whatever looks like a
 * credential is replaced before logging or echoing the target in a problem.
 */

/** Query parameter names that carry credentials in common APIs (access_token, api_key, X-Amz-Signature, ...). */
const SECRET_PARAM = /token|key|secret|passw|auth|credential|signature|session|^sig$|^code$/i;
/** Labelmaker tokens (`lm_<id>_<secret>`, see records/tokens.ts) wherever they appear; the public id is kept. */
const TOKEN = /\b(lm_[a-z2-7]{8}_)[A-Za-z0-9_-]{20,}/g;
const MASK = '***';
/** Integration keys travel in the path (`/v1/integrations/<system>/<key>/...`): the whole segment goes, well-formed or not. */
const INTEGRATION_KEY = /(\/integrations\/[^/?#]+\/)[^/?#]+/gi;

export function redactRequestTarget(target: string): string {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  let out = path;
  if (q >= 0) {
    const params = target
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        return SECRET_PARAM.test(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${MASK}` : pair;
      });
    out += `?${params.join('&')}`;
  }
  return out.replace(INTEGRATION_KEY, `$1${MASK}`).replace(TOKEN, `$1${MASK}`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
