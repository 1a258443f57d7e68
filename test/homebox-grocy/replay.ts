/**
 * Requests exactly as Homebox and Grocy send them, for replaying against the real
 * server over a plain socket. Written from their public source: Homebox
 * backend/pkgs/labelmaker/labelmaker.go (v0.21.0 and later,
 * https://github.com/sysadminsmedia/homebox) and Grocy helpers/WebhookRunner.php and
 * helpers/Grocycode.php (4.5 and later, https://github.com/grocy/grocy).
 */
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';

/** Go's url.QueryEscape: only A-Z a-z 0-9 - _ . ~ stay; space is `+`. */
export function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's url.Values.Encode(): sorted by key, `k=v` joined with `&`. */
export function goValuesEncode(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((k) => `${goQueryEscape(k)}=${goQueryEscape(values[k]!)}`)
    .join('&');
}

/** Go's fmt `%f`: six decimals. */
const f = (n: number) => n.toFixed(6);

/** Homebox's label parameters with its default config (526 x 200, padding 32, 72 dpi). */
export function homeboxQuery(text: { TitleText: string; DescriptionText: string; URL: string }, additional?: string): string {
  const width = 526, height = 200, padding = 32, margin = 32;
  const values: Record<string, string> = {
    Width: String(width),
    Height: String(height),
    QrSize: String(height - 2 * padding),
    Margin: String(margin),
    ComponentPadding: String(padding),
    TitleFontSize: f(32),
    DescriptionFontSize: f(25.6),
    Dpi: f(72),
    DynamicLength: 'true',
    ...text,
  };
  if (additional !== undefined) values.AdditionalInformation = additional;
  return goValuesEncode(values);
}

/** Homebox's GET: its own query string replaces the configured URL's; Go's client headers. */
export function homeboxGet(baseUrl: string, path: string, query: string): Promise<RawResponse> {
  const host = new URL(baseUrl).host;
  return rawRequest(baseUrl, [`GET ${path}?${query} HTTP/1.1`, `Host: ${host}`, 'User-Agent: Homebox-LabelMaker/1.0', 'Accept: image/*', 'Accept-Encoding: gzip'].join('\r\n'), { timeoutMs: 30_000 });
}

/** Grocy's server-side webhook POST (Guzzle): JSON or form fields, no credentials. */
export function grocyPost(baseUrl: string, path: string, body: { json: unknown } | { form: string }): Promise<RawResponse> {
  const host = new URL(baseUrl).host;
  const [type, data] = 'json' in body ? ['application/json', JSON.stringify(body.json)] : ['application/x-www-form-urlencoded', body.form];
  const bytes = Buffer.from(data, 'utf8');
  const head = [`POST ${path} HTTP/1.1`, `Host: ${host}`, 'User-Agent: GuzzleHttp/7', `Content-Type: ${type}`, `Content-Length: ${bytes.length}`, '', ''].join('\r\n');
  return rawRequest(baseUrl, Buffer.concat([Buffer.from(head, 'latin1'), bytes]), { complete: false, timeoutMs: 10_000 });
}

/** PHP's http_build_query (Guzzle form_params): nested arrays as `a[b]=`, spaces as `+`. */
export function phpBuildQuery(data: Record<string, unknown>, prefix?: string): string {
  return Object.entries(data)
    .flatMap(([k, v]) => {
      const key = prefix ? `${prefix}[${k}]` : k;
      if (v !== null && typeof v === 'object') return [phpBuildQuery(v as Record<string, unknown>, key)];
      return [`${encodeURIComponent(key).replace(/%20/g, '+')}=${encodeURIComponent(String(v ?? '')).replace(/%20/g, '+')}`];
    })
    .join('&');
}
