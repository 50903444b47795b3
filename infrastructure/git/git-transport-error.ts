/** Raised inside a clone; the fetcher turns it into a GitFetchError message. */
export class GitTransportError extends Error {}
