/**
 * Request targets fit for logs. Tokens belong in the Authorization header (never
 * logged), but clients still put them in URLs (`?access_token=`, an API key pasted
 * into a path or a search), and integration keys are in the path by design: whatever
 * looks like a credential is replaced before logging or echoing the target in a
 * problem. Each path segment and query parameter is judged by its decoded text, so a
 * percent-escape (`%2F`, `%5F`) cannot move a key out of view.
 */

/** Query parameter names that carry credentials in common APIs (access_token, api_key, X-Amz-Signature, ...). */
const SECRET_PARAM = /token|key|secret|passw|auth|credential|signature|session|^sig$|^code$/i;
/**
 * Labelmaker tokens (`lm_<id>_<secret>`, see records/tokens.ts) wherever they appear,
 * glued to other text too (`q=x%20lm_...`, `Bearerlm_...`); the public id is kept.
 */
const TOKEN = /(lm_[a-z2-7]{8}_)[A-Za-z0-9_-]{20,}/gi;
/** The start of a token: enough to refuse a value as a request id (request-id.ts). */
const TOKEN_START = /lm_[a-z2-7]{8}_/i;
const MASK = '***';
/** An integration system's name as routes use it (`homebox`, `grocy`): anything else may hide the key. */
const SYSTEM_NAME = /^[A-Za-z0-9_-]+$/;

export function redactRequestTarget(target: string): string {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const segments = path.split('/');
  const decoded = segments.map((s) => safeDecode(s, false));
  const out = segments.map((s, i) => maskTokens(s, decoded[i]!));
  // Integration keys travel in the path (`/v1/integrations/<system>/<key>/...`): the whole
  // segment goes, well-formed or not. A system segment that is not a plain name
  // (`homebox%2F<key>`, empty) may carry the key itself: it goes too, with the next one.
  decoded.forEach((d, i) => {
    if (d.toLowerCase() !== 'integrations' || i + 1 >= segments.length) return;
    if (!SYSTEM_NAME.test(decoded[i + 1]!)) out[i + 1] = MASK;
    if (i + 2 < segments.length && (segments[i + 2] !== '' || out[i + 1] === MASK)) out[i + 2] = MASK;
  });
  let result = out.join('/');
  if (q >= 0) {
    const params = target
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return maskTokens(pair, safeDecode(pair, true));
        const name = pair.slice(0, eq);
        const value = pair.slice(eq + 1);
        const decodedName = safeDecode(name, true);
        if (SECRET_PARAM.test(decodedName)) return `${maskTokens(name, decodedName)}=${MASK}`;
        return `${maskTokens(name, decodedName)}=${maskTokens(value, safeDecode(value, true))}`;
      });
    result += `?${params.join('&')}`;
  }
  return result;
}

/** Whether text carries something shaped like a Labelmaker token (in clear). */
export function looksLikeToken(text: string): boolean {
  return TOKEN_START.test(text);
}

/** `raw` with its tokens masked; when only its decoded form shows one, that form masked and re-encoded. */
function maskTokens(raw: string, decoded: string): string {
  const masked = decoded.replace(TOKEN, `$1${MASK}`);
  if (decoded !== raw && masked !== decoded) return encodeURIComponent(masked);
  return raw.replace(TOKEN, `$1${MASK}`);
}

function safeDecode(text: string, plusIsSpace: boolean): string {
  try {
    return decodeURIComponent(plusIsSpace ? text.replaceAll('+', ' ') : text);
  } catch {
    return text;
  }
}
