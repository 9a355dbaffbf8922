/** Content-Type checks for request bodies. */

/** The media type of a Content-Type value, lower case, without parameters ('' when absent). */
export function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The charset parameter of a Content-Type value, lower case, or undefined. */
function charset(contentType: string): string | undefined {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}

/** What JSON routes accept, for error messages. */
export const JSON_MEDIA_TYPES = 'application/json (or any application/*+json), UTF-8';

/**
 * True for application/json and structured-syntax JSON types
 * (application/problem+json, application/merge-patch+json, ...), with no
 * charset or a UTF-8 one (JSON is UTF-8: RFC 8259).
 */
export function isJsonContentType(contentType: string): boolean {
  const type = mediaType(contentType);
  const json = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json') && !type.includes(' '));
  if (!json) return false;
  const cs = charset(contentType);
  return cs === undefined || cs === 'utf-8' || cs === 'utf8';
}
