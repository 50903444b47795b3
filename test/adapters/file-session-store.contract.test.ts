import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileSessionStore } from '../../infrastructure/sessions/file-session-store.js';
import { CONTRACT_TTL_MS, sessionStoreContract } from '../contract/session-store-contract.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';

sessionStoreContract('file store', async (clock) => {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-sessions-'));
  const store = new FileSessionStore({ dir: path.join(root, 'sessions'), ttlMs: CONTRACT_TTL_MS, clock });
  return {
    store,
    cleanup: async () => {
      await store.idle();
      await rm(root, { recursive: true, force: true });
    },
  };
});

sessionStoreContract('fake', async (clock) => ({ store: new FakeSessionStore({ clock, ttlMs: CONTRACT_TTL_MS }), cleanup: async () => undefined }));
