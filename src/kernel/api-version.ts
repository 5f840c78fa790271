/**
 * The API version: the OpenAPI document's `info.version`, and `API_VERSION` of the client package
 * (`spend-auth/client`), which records the version of the document it was generated from. One
 * constant for both, so they cannot drift apart.
 */
export const API_VERSION = 'v1';
