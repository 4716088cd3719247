/** @graphmem/client: a typed client of `graphmem serve`, with graphmem's errors. */
export * from './client.js';
export * from './errors.js';
