import type { OpenApiDocument } from './openapi.js';

type JsonSchema = Record<string, unknown>;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const inlineCode = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A `{$ref: "#/components/…"}` of the document, followed (one level: the document has no chains). */
const resolveRef = <T extends { $ref?: string }>(doc: OpenApiDocument, node: T): T =>
  node.$ref ? (node.$ref.slice(2).split('/').reduce<any>((n, key) => n?.[key], doc) as T) : node;

/** A self-contained reference page, rendered on the server from the document: no script, no CDN. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required: boolean; description?: string; schema: JsonSchema }>;
      const paramRows = params
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code>${p.description ? `<br>${inlineCode(p.description)}` : ''}</td></tr>`,
        )
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses as Record<string, { description?: string; $ref?: string }>)
        .map(([status, r]) => `<li><b>${escapeHtml(status)}</b> ${inlineCode(resolveRef(doc, r).description ?? '')}</li>`)
        .join('');
      const html = `<section class="op" id="${escapeHtml(op.operationId)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${inlineCode(op.summary)}</p>
${op.description ? `<p class="d">${inlineCode(op.description).replace(/\n\n/g, '<br>')}</p>` : ''}
${paramRows ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${paramRows}</table>` : ''}
${body ? `<details><summary>Request body (JSON Schema)</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>` : ''}
<ul class="r">${responses}</ul>
</section>`;
      const tag = (op.tags?.[0] as string | undefined) ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(html);
    }
  }
  const toc = [...byTag.keys()].map((t) => `<a href="#tag-${escapeHtml(t.replace(/\W+/g, '-'))}">${escapeHtml(t)}</a>`).join(' · ');
  const sections = [...byTag.entries()].map(([t, ops]) => `<h2 id="tag-${escapeHtml(t.replace(/\W+/g, '-'))}">${escapeHtml(t)}</h2>\n${ops.join('\n')}`).join('\n');
  const info = doc.info as { title: string; version: string; description: string };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} — API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font:13px ui-monospace,monospace;background:#f3f3f3;border-radius:3px;padding:0 .2em}
pre{padding:.6em;overflow:auto}.op{border-top:1px solid #ddd;padding:.4em 0}
h3{font-size:1rem;margin:.6em 0 .2em}.m{display:inline-block;min-width:4em;text-align:center;color:#fff;border-radius:3px;font-size:.8rem;padding:.1em .3em}
.get{background:#2f7d32}.post{background:#1565c0}.patch{background:#8e5b00}.delete{background:#b71c1c}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #ddd;padding:.2em .4em;text-align:left;vertical-align:top}.d{color:#444}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${inlineCode(info.description)}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}). Authenticate with <code>Authorization: Bearer gc_test_…</code>.</p>
<nav>${toc}</nav>
${sections}
</body></html>
`;
}
