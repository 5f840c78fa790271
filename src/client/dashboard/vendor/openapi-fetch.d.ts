// What the dashboard imports as ./vendor/openapi-fetch.js: the openapi-fetch package's own ES
// module, which the API serves at /dashboard/vendor/openapi-fetch.js (src/http/dashboard.ts).
// tsconfig.dashboard.json maps dashboard/ onto this folder (rootDirs) for the type check.
export { default } from 'openapi-fetch';
export type * from 'openapi-fetch';
