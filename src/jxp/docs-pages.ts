// The HTML of JXP's browser pages, kept plain (no scripts: the security headers' policy allows
// none inline): the landing page (GET /), the docs login page, the API reference listing the
// models a session may use, and one model's fields.
import type { Model } from '../models/model-definition.ts'

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  )
}

export function landingPage(apiDocs: boolean): string {
  return page(
    'Quire',
    "<p>A REST document service with JXP's API.</p><ul>" +
      (apiDocs ? '<li><a href="/docs">OpenAPI reference</a> (<a href="/openapi.json">openapi.json</a>)</li>' : '') +
      '<li><a href="/docs/api">Models</a> (after logging in)</li><li><a href="/docs/md/api.md">Guide</a></li></ul>'
  )
}

export function loginPage(next: string): string {
  return page(
    'Log in to the model browser',
    '<p>Log in with <code>POST /login</code>, then send the <code>apikey</code> it answers to <code>POST ' +
      '/docs/session</code>, or paste it here.</p>' +
      `<form method="post" action="/docs/session"><input type="hidden" name="next" ` +
      `value="${escapeHtml(next)}"><label>API key <input name="apikey" type="password" ` +
      `autocomplete="off"></label> <button>Open</button></form>`
  )
}

export function referencePage(models: Array<{ model: Model; letters: string }>): string {
  const rows = models.map(
    ({ model, letters }) =>
      `<tr><td><a href="/docs/model/${escapeHtml(model.name)}">${escapeHtml(model.name)}</a></td>` +
      `<td>${escapeHtml(letters)}</td><td>${escapeHtml(model.description ?? '')}</td></tr>`
  )
  return page(
    'API reference',
    `<table><tr><th>Model</th><th>Your letters</th><th>Description</th></tr>${rows.join('')}</table>`
  )
}

export function modelPage(model: Model): string {
  const rows = Object.entries(model.fields).map(
    ([name, spec]) =>
      `<tr><td>${escapeHtml(name)}</td><td>${escapeHtml(spec.type)}` +
      (spec.link !== undefined ? ` &rarr; ${escapeHtml(spec.link)}` : '') +
      `</td><td>${model.required.includes(name) ? 'required' : ''}</td></tr>`
  )
  return page(
    `Model ${model.name}`,
    `<p>${escapeHtml(model.description ?? '')}</p>` +
      `<table><tr><th>Field</th><th>Type</th><th></th></tr>${rows.join('')}</table>` +
      '<p><a href="/docs/api">All models</a></p>'
  )
}
