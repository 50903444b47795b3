import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import type { Payload } from '../../domain/ports/vector-store.js';
import { EmbeddedCollection } from './embedded-collection.js';

/**
 * On-disk form of one collection, written whole and atomically:
 *   "SVCVEC01" | u32 LE header length | header JSON | float32 LE vectors | sha256 of all before.
 * The header holds name, dimension, distance, count, ids and payloads.
 * A file that fails any check is reported as corrupt, never read partially.
 */

const MAGIC = Buffer.from('SVCVEC01', 'ascii');
const DIGEST_BYTES = 32;
export const FILE_SUFFIX = '.svcvec';

interface Header {
  name: string;
  dimension: number;
  distance: 'cosine';
  count: number;
  ids: string[];
  payloads: Payload[];
}

// Float32Array views use the platform's byte order; the file format is little-endian.
if (endianness() !== 'LE') throw new Error('The embedded vector store needs a little-endian CPU; set QDRANT_URL to use Qdrant instead');

export function encodeCollection(c: EmbeddedCollection): Buffer[] {
  const { ids, payloads, vectors } = c.rows();
  const header: Header = { name: c.name, dimension: c.dimension, distance: 'cosine', count: ids.length, ids: [...ids], payloads: [...payloads] };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length, 0);
  // a copy: the live array may change while the write is in flight
  const vectorBytes = Buffer.from(vectors.slice().buffer);
  const digest = createHash('sha256').update(MAGIC).update(length).update(headerBytes).update(vectorBytes).digest();
  return [MAGIC, length, headerBytes, vectorBytes, digest];
}

export class CorruptFileError extends Error {}

export function decodeCollection(bytes: Buffer, expectedName: string): EmbeddedCollection {
  const fail = (why: string): never => {
    throw new CorruptFileError(why);
  };
  if (bytes.length < MAGIC.length + 4 + DIGEST_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) fail('not an svc vector file');
  const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
  const digest = createHash('sha256').update(body).digest();
  if (!digest.equals(bytes.subarray(bytes.length - DIGEST_BYTES))) fail('checksum mismatch (truncated or modified)');
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  const headerStart = MAGIC.length + 4;
  if (headerStart + headerLength > body.length) fail('header length out of range');
  let header: Header;
  try {
    header = JSON.parse(body.subarray(headerStart, headerStart + headerLength).toString('utf8')) as Header;
  } catch {
    return fail('header is not JSON');
  }
  const { name, dimension, count, ids, payloads } = header;
  if (name !== expectedName || header.distance !== 'cosine') fail('header does not describe this collection');
  if (!Number.isInteger(dimension) || dimension < 1 || !Number.isInteger(count) || count < 0) fail('bad dimension or count');
  if (!Array.isArray(ids) || !Array.isArray(payloads) || ids.length !== count || payloads.length !== count) fail('ids or payloads do not match the count');
  if (new Set(ids).size !== count) fail('duplicate ids');
  const vectorStart = headerStart + headerLength;
  if (body.length - vectorStart !== count * dimension * 4) fail('vector block has the wrong size');
  // copy into an aligned buffer: the slice of a larger Buffer may not start on a 4-byte boundary
  const aligned = new Uint8Array(count * dimension * 4);
  aligned.set(body.subarray(vectorStart));
  return EmbeddedCollection.fromRows(name, dimension, ids, payloads, new Float32Array(aligned.buffer));
}
