import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EmbeddedVectorStore } from '../../infrastructure/vector/embedded-vector-store.js';
import { vectorStoreContract } from '../contract/vector-store-contract.js';

vectorStoreContract('embedded store', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-vectors-'));
  return { store: new EmbeddedVectorStore({ dir }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
