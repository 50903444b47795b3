import type { ClusterReader } from './cluster-reader.js';
import type { ClusterWriter } from './cluster-writer.js';

export type { ClusterStatus } from './cluster-reader.js';

/**
 * What one Kubernetes adapter implements: both ports. Use cases never take
 * this whole; they are given the reader, the writer, or both separately
 * (the composition root registers the same adapter under each port).
 */
export interface ClusterClient extends ClusterReader, ClusterWriter {}
