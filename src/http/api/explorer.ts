/**
 * The API explorer: one self-contained HTML page (no external scripts or
 * styles) listing every documented route with a form to try it. It is
 * rendered from the same route table as the OpenAPI document.
 */
import type { RouteSpec } from '../route.js';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]!);
}

function field(label: string, name: string, kind: string, hint: string): string {
  return `<label>${escapeHtml(label)} <input name="${escapeHtml(name)}" data-kind="${kind}" placeholder="${escapeHtml(hint)}"></label>`;
}

function form(route: RouteSpec): string {
  const doc = route.doc!;
  const inputs: string[] = [];
  for (const name of Object.keys(doc.params ?? {})) inputs.push(field(`:${name}`, name, 'path', 'required'));
  for (const [name, schema] of Object.entries(doc.query ?? {})) inputs.push(field(`?${name}`, name, 'query', String(schema.description ?? '')));
  if (route.suffixes !== undefined) {
    const options = ['', ...route.suffixes].map((s) => `<option value="${escapeHtml(s)}">${s === '' ? '(none)' : escapeHtml(s)}</option>`);
    inputs.push(`<label>suffix <select name="suffix" data-kind="suffix">${options.join('')}</select></label>`);
  }
  if (doc.requestBody !== undefined) {
    const example = JSON.stringify(doc.example ?? {}, null, 2);
    inputs.push(`<label class="body">body (application/json)<textarea name="body" data-kind="body" rows="5">${escapeHtml(example)}</textarea></label>`);
  }
  const statuses = Object.keys(doc.responses).join(', ');
  return `<section class="op">
<h3><span class="method ${route.method.toLowerCase()}">${route.method}</span> <code>${escapeHtml(route.path)}</code> ${escapeHtml(doc.summary)}</h3>
<form data-method="${route.method}" data-path="${escapeHtml(route.path)}">
${inputs.join('\n')}
<button type="submit">Send</button> <small>answers ${escapeHtml(statuses)}</small>
</form>
<pre class="out" hidden></pre>
</section>`;
}

const script = `
for (const form of document.querySelectorAll('form')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const out = form.nextElementSibling;
    let path = form.dataset.path, suffix = '', body;
    const query = new URLSearchParams();
    for (const el of form.querySelectorAll('[data-kind]')) {
      const kind = el.dataset.kind, value = el.value;
      if (kind === 'path') path = path.replace(':' + el.name, encodeURIComponent(value));
      else if (kind === 'query' && value !== '') query.set(el.name, value);
      else if (kind === 'suffix') suffix = value;
      else if (kind === 'body') body = value;
    }
    const url = path + suffix + (query.size ? '?' + query : '');
    const init = { method: form.dataset.method };
    if (body !== undefined) { init.body = body; init.headers = { 'Content-Type': 'application/json' }; }
    out.hidden = false;
    out.textContent = init.method + ' ' + url + ' ...';
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch {}
      const headers = [...res.headers].map(([k, v]) => k + ': ' + v).join('\\n');
      out.textContent = init.method + ' ' + url + '\\n\\nHTTP ' + res.status + ' ' + res.statusText + '\\n' + headers + '\\n\\n' + shown;
    } catch (err) {
      out.textContent = init.method + ' ' + url + '\\n\\n' + err;
    }
  });
}`;

const style = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #222; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
.op { border: 1px solid #ddd; border-radius: 6px; padding: .5em 1em; margin: 1em 0; }
.op h3 { font-size: 1em; margin: .3em 0; }
.method { display: inline-block; min-width: 4.5em; font-weight: bold; }
.get { color: #16a; } .post { color: #1a6; } .put, .patch { color: #a61; } .delete { color: #a12; }
label { display: inline-block; margin: .2em 1em .2em 0; }
label.body { display: block; } textarea { display: block; width: 100%; font-family: monospace; }
pre.out { background: #f6f6f6; padding: .5em; overflow: auto; max-height: 30em; }`;

/** The explorer page for `routes` (documented ones only), grouped by tag. */
export function explorerHtml(routes: readonly RouteSpec[]): string {
  const byTag = new Map<string, RouteSpec[]>();
  for (const route of routes) {
    if (route.doc === undefined) continue;
    const list = byTag.get(route.doc.tag) ?? [];
    list.push(route);
    byTag.set(route.doc.tag, list);
  }
  const sections = [...byTag].map(([tag, list]) => `<h2>${escapeHtml(tag)}</h2>\n${list.map(form).join('\n')}`);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Strata API explorer</title><style>${style}</style></head>
<body>
<h1>Strata API explorer</h1>
<p>Every route of the HTTP API, with a form to try it against this server. The machine-readable description is
<a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1). Errors are <code>application/problem+json</code>.</p>
${sections.join('\n')}
<script>${script}</script>
</body>
</html>
`;
}
