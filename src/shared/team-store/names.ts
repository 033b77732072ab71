/** Where the store's tables live (schema version 4 on): never `public`, where another application's `documents` may be. */
export const STORE_SCHEMA = 'agentos';
/** Every connection's search path: the store's schema, then public (where CREATE EXTENSION put pgvector's type). */
export const SEARCH_PATH = `${STORE_SCHEMA}, public`;
