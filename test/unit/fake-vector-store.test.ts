import { FakeVectorStore } from '../support/fake-vector-store.js';
import { vectorStoreContract } from '../contract/vector-store-contract.js';

// The fake the unit tests rely on must honour the same contract as the real adapters.
vectorStoreContract('fake (unit tests)', async () => ({ store: new FakeVectorStore(), cleanup: async () => undefined }));
