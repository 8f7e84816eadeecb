/**
 * OpenAPI pieces of the extension API's own: its bearer security requirement.
 * @module
 */

/** The security requirement of routes that need an extension token. */
export const bearerSecurity = [{ extensionToken: [] }];
