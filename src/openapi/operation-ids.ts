// Operation ids for client generators, one scheme for every path: the method, then the path's
// segments in PascalCase, parameters as By<Name> (`GET /api/test/{id}` -> getApiTestById,
// `POST /login` -> postLogin), so a generated client's function names read like the routes.

const pascal = (name: string): string =>
  name
    .split(/[_-]/)
    .map(part => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')

/** The id of `method path`; a `{model}` segment is written as `model`'s name. */
export function operationId(method: string, path: string, model?: string): string {
  const segments = path
    .split('/')
    .filter(Boolean)
    .map(segment => {
      if (segment === '{model}' && model !== undefined) return pascal(model)
      return segment.startsWith('{') ? `By${pascal(segment.slice(1, -1))}` : pascal(segment)
    })
  return method.toLowerCase() + segments.join('')
}
