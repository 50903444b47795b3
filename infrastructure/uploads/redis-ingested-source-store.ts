import { createHash } from 'node:crypto';
import { ValidationError } from '../../domain/errors.js';
import type { IngestedSourceStore } from '../../domain/ports/ingested-source-store.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';
import type { InMemoryIngestedSourceStore, IngestedSourceStoreLimits } from './in-memory-ingested-source-store.js';
import type { RedisConnection } from '../redis/redis-connection.js';

/**
 * Stores one source atomically, then evicts least recently stored sources
 * until the count and byte bounds hold. A pointer per identifier key names a
 * content-addressed blob (`blob:<sha256>`, shared by identical uploads, with
 * a reference count); both expire after the TTL.
 * KEYS: lru zset, sizes hash, blob refs hash. ARGV: prefix, key, pointer,
 * blob id, blob, totalBytes, now, maxSources, maxBytes, ttlMs.
 */
const PUT_SCRIPT = `
local prefix, key = ARGV[1], ARGV[2]
local function drop(k)
  local ptr = redis.call('GET', prefix .. 'source:' .. k)
  if ptr then
    local ok, obj = pcall(cjson.decode, ptr)
    if ok and obj.blob then
      local n = redis.call('HINCRBY', KEYS[3], obj.blob, -1)
      if n <= 0 then redis.call('HDEL', KEYS[3], obj.blob); redis.call('DEL', prefix .. 'blob:' .. obj.blob) end
    end
  end
  redis.call('DEL', prefix .. 'source:' .. k)
  redis.call('ZREM', KEYS[1], k)
  redis.call('HDEL', KEYS[2], k)
end
drop(key)
local total = tonumber(ARGV[6])
while true do
  local bytes = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do bytes = bytes + tonumber(v) end
  if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[8]) and bytes + total <= tonumber(ARGV[9]) then break end
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
end
redis.call('SET', prefix .. 'blob:' .. ARGV[4], ARGV[5], 'PX', ARGV[10])
redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
redis.call('SET', prefix .. 'source:' .. key, ARGV[3], 'PX', ARGV[10])
redis.call('ZADD', KEYS[1], ARGV[7], key)
redis.call('HSET', KEYS[2], key, total)
return 1
`;

interface Pointer {
  source: string;
  contentHash?: string;
  blob: string;
  totalBytes: number;
}

type StoredFile = { path: string; mode: number; content: string };

/**
 * Uploaded sources shared by every replica: Redis holds them (the same count
 * and byte bounds as the in-memory store, least recently stored evicted first,
 * a TTL), and the in-memory store stays in front as a first level. A first-
 * level hit is served only while its blob is still the one Redis names for
 * that identifier (another replica may have replaced it). With Redis down, an
 * upload fails naming Redis; a render falls back to the first level.
 */
export class RedisIngestedSourceStore implements IngestedSourceStore {
  private readonly blobIds = new WeakMap<IngestedSource, string>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly l1: InMemoryIngestedSourceStore,
    private readonly limits: IngestedSourceStoreLimits & { ttlMs: number },
    private readonly logger: Logger,
  ) {}

  async get(key: string): Promise<IngestedSource | undefined> {
    const local = await this.l1.get(key);
    let pointer: Pointer | undefined;
    try {
      const text = await this.redis.run({ command: 'GET', target: 'source', what: 'read an uploaded source' }, (c) => c.get(this.redis.key('source', key)));
      pointer = text ? (JSON.parse(text) as Pointer) : undefined;
      if (!pointer) {
        if (local) this.l1.remove(key);
        return undefined;
      }
      if (local && this.blobIdOf(local) === pointer.blob) return local;
      const blob = await this.redis.run({ command: 'GET', target: 'blob', what: 'read an uploaded source' }, (c) =>
        c.getBuffer(this.redis.key('blob', pointer!.blob)),
      );
      if (!blob) return undefined;
      const source = decode(key, pointer, blob);
      this.blobIds.set(source, pointer.blob);
      await this.l1.put(source);
      return source;
    } catch (e) {
      if (!local) throw e;
      this.logger.warn("redis unavailable; rendering an uploaded source from this replica's memory", { error: (e as Error).message });
      return local;
    }
  }

  async put(source: IngestedSource): Promise<void> {
    if (source.totalBytes > this.limits.maxBytes) {
      throw new ValidationError(
        `Upload of ${source.totalBytes} decoded bytes exceeds the server's source cache of ${this.limits.maxBytes} bytes (SVC_SOURCES_MAX_BYTES)`,
      );
    }
    const blob = encode(source);
    const id = createHash('sha256').update(blob).digest('hex');
    const pointer: Pointer = {
      source: source.source,
      ...(source.contentHash ? { contentHash: source.contentHash } : {}),
      blob: id,
      totalBytes: source.totalBytes,
    };
    const k = (name: string) => this.redis.key('sources', name);
    await this.redis.run({ command: 'EVAL', target: 'sources', what: 'store an uploaded source' }, (c) =>
      c.eval(
        PUT_SCRIPT,
        3,
        k('lru'),
        k('sizes'),
        k('blobrefs'),
        this.redis.prefix,
        source.key,
        JSON.stringify(pointer),
        id,
        blob,
        String(source.totalBytes),
        String(Date.now()),
        String(this.limits.maxSources),
        String(this.limits.maxBytes),
        String(this.limits.ttlMs),
      ),
    );
    this.blobIds.set(source, id);
    await this.l1.put(source);
  }

  private blobIdOf(source: IngestedSource): string {
    let id = this.blobIds.get(source);
    if (!id) this.blobIds.set(source, (id = createHash('sha256').update(encode(source)).digest('hex')));
    return id;
  }
}

function encode(source: IngestedSource): string {
  return JSON.stringify(source.files.map((f): StoredFile => ({ path: f.path, mode: f.mode, content: f.content.toString('base64') })));
}

function decode(key: string, pointer: Pointer, blob: Buffer): IngestedSource {
  const files = (JSON.parse(blob.toString('utf8')) as StoredFile[]).map((f) => ({ path: f.path, mode: f.mode, content: Buffer.from(f.content, 'base64') }));
  return { key, source: pointer.source, ...(pointer.contentHash ? { contentHash: pointer.contentHash } : {}), files, totalBytes: pointer.totalBytes };
}
